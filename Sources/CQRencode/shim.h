#ifndef METRONOME_CQRENCODE_SHIM_H
#define METRONOME_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
