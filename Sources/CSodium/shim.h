#ifndef PARAMD_CSODIUM_SHIM_H
#define PARAMD_CSODIUM_SHIM_H
// The tokens of SPEC §16: 256 random bits from libsodium's `randombytes_buf` (getrandom), and
// the comparison of a token a request carries with the real one in constant time
// (`sodium_memcmp`), from a well-kept library rather than hand-made code.
#include <sodium.h>
#endif
