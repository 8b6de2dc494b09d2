#ifndef PARAMD_CQRENCODE_SHIM_H
#define PARAMD_CQRENCODE_SHIM_H
// `paramd --show-url` prints the control page's URL as a QR code a phone can scan (SPEC §16),
// encoded by libqrencode.
#include <qrencode.h>
#endif
