#ifndef PARAMD_CLIBLO_SHIM_H
#define PARAMD_CLIBLO_SHIM_H
#include <lo/lo.h>
#include <lo/lo_lowlevel.h>
#endif
