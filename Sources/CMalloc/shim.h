#ifndef WHEREABOUTS_CMALLOC_SHIM_H
#define WHEREABOUTS_CMALLOC_SHIM_H
// glibc's malloc tuning (mallopt, M_ARENA_MAX), which the Glibc module does not export: the
// publisher's entry point keeps to one malloc arena.
#include <malloc.h>
#endif
