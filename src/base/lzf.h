// LZF compression, format-compatible with liblzf as used for snapshot strings and compressed
// quicklist nodes.
#pragma once
#include <cstddef>

namespace base {
// Returns compressed size, or 0 if the output would not fit in out_len.
size_t LzfCompress(const void* in, size_t in_len, void* out, size_t out_len);
// Returns decompressed size, or 0 on corrupt input or if out_len is too small.
size_t LzfDecompress(const void* in, size_t in_len, void* out, size_t out_len);
}  // namespace base
