#ifndef PARAMD_CLTC_SHIM_H
#define PARAMD_CLTC_SHIM_H
// libltc (Debian's libltc-dev, LGPL-3.0-or-later): LTC decoding on paramd's `ltc_in` port
// (SPEC §18) and, in paramd-jacktool, the encoder the tests make timecode with.
#include <ltc.h>
#endif
