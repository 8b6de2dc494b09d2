# Writes, without sclang, the SynthDef the scsynth end-to-end test plays (SCgf file format,
# version 2, as SuperCollider documents it): "cutoff_dc", whose one control `cutoff` (initial
# 440) goes to audio bus 0 as it is — Out.ar(0, K2A.ar(Control.kr(cutoff))). Recording
# SuperCollider:out_1 then records the control paramd's /n_set sends drive.
# Usage: make-synthdef.py OUTPUT.scsyndef
import struct, sys
def pstr(s): b=s.encode(); return struct.pack('>B',len(b))+b
d=b'SCgf'+struct.pack('>iH',2,1)
d+=pstr('cutoff_dc')
d+=struct.pack('>i',1)+struct.pack('>f',0.0)            # constants: [0]
d+=struct.pack('>i',1)+struct.pack('>f',440.0)          # params: initial cutoff
d+=struct.pack('>i',1)+pstr('cutoff')+struct.pack('>i',0)
d+=struct.pack('>i',3)                                  # ugens
# 0: Control.kr, 0 in, 1 out
d+=pstr('Control')+struct.pack('>bii h',1,0,1,0)+struct.pack('>b',1)
# 1: K2A.ar(ugen0 out0)
d+=pstr('K2A')+struct.pack('>bii h',2,1,1,0)+struct.pack('>ii',0,0)+struct.pack('>b',2)
# 2: Out.ar(bus const0, ugen1 out0)
d+=pstr('Out')+struct.pack('>bii h',2,2,0,0)+struct.pack('>ii',-1,0)+struct.pack('>ii',1,0)
d+=struct.pack('>h',0)                                  # variants
open(sys.argv[1],'wb').write(d)
