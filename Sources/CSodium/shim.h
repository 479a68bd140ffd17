#ifndef WHEREABOUTS_CSODIUM_SHIM_H
#define WHEREABOUTS_CSODIUM_SHIM_H
// libsodium (Debian libsodium-dev): the secretbox (XSalsa20-Poly1305) that OwnTracks payload
// encryption uses. Swift reads the sizes through the crypto_secretbox_*bytes() functions, since
// the header's size macros are chains of other macros.
#include <sodium.h>
#endif
