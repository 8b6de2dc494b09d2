#include "ctimecodefloor.h"
#include <ltc.h>

void *ctf_decoder_create(int samplesPerFrame) { return ltc_decoder_create(samplesPerFrame, 32); }

int ctf_decode(void *decoder, const float *samples, int count, int64_t position) {
    ltc_decoder_write_float((LTCDecoder *)decoder, (float *)samples, (size_t)count, position);
    LTCFrameExt frame;
    int read = 0;
    while (ltc_decoder_read((LTCDecoder *)decoder, &frame)) read++;
    return read;
}
