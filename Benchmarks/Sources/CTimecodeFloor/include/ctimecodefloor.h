#ifndef CTIMECODEFLOOR_H
#define CTIMECODEFLOOR_H
#include <stdint.h>
// The C floor of LTC decoding (docs/PERFORMANCE.md, "Timecode"): libltc's decoder over one
// period of float samples, its frames read out, nothing else.
void *ctf_decoder_create(int samplesPerFrame);
/// Decodes `count` samples at stream position `position`; returns the frames read.
int ctf_decode(void *decoder, const float *samples, int count, int64_t position);
#endif
