#ifndef WHEREABOUTS_CPNG_SHIM_H
#define WHEREABOUTS_CPNG_SHIM_H
// Debian's libpng (libpng-dev), through its "simplified API" (png.h, png_image_*): PNG files of
// the invites' QR codes.
#include <png.h>
#include <string.h>

/// Encodes `width` x `height` 8-bit grey pixels (rows of `width` bytes) as a PNG into `memory`
/// (`*size` bytes; on return the PNG's size). With `memory` NULL, only sets `*size` to the size
/// needed. Returns non-zero on success; on failure `message` (64 bytes) holds libpng's reason.
static inline int whereabouts_png_write_gray(
    const unsigned char *pixels, unsigned int width, unsigned int height,
    void *memory, size_t *size, char message[64]) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = PNG_FORMAT_GRAY;
    png_alloc_size_t bytes = *size;
    int ok = png_image_write_to_memory(&image, memory, &bytes, 0, pixels, (png_int_32)width, NULL);
    *size = bytes;
    memcpy(message, image.message, 64);
    png_image_free(&image);
    return ok;
}
#endif
