#ifndef WHEREABOUTS_CQRENCODE_SHIM_H
#define WHEREABOUTS_CQRENCODE_SHIM_H
// Debian's libqrencode (libqrencode-dev): QR code symbols for the invites of `whereabouts-sub invite`.
#include <qrencode.h>
#endif
