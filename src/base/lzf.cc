// LZF compression and bounds-checked decompression in the liblzf stream format.
//
// Stream: a control byte c. c < 32: a literal run of c+1 bytes follows. Otherwise a back
// reference: length field L = c >> 5 (7 means "add the next byte"), then the low byte of the
// offset; the match copies L+2 bytes from (output position - ((c & 31) << 8 | low) - 1).
#include "base/lzf.h"

#include <cstdint>
#include <cstring>

namespace base {
namespace {

constexpr size_t kMaxLiteral = 32;
constexpr size_t kMaxOffset = 1 << 13;
constexpr size_t kMaxMatch = 7 + 255 + 2;
constexpr int kMaxHashLog = 14;

inline uint32_t Hash3(const uint8_t* p, int log) {
  uint32_t v = static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 | p[2];
  return (v * 2654435761u) >> (32 - log);
}

}  // namespace

size_t LzfCompress(const void* in_v, size_t in_len, void* out_v, size_t out_len) {
  const uint8_t* in = static_cast<const uint8_t*>(in_v);
  uint8_t* out = static_cast<uint8_t*>(out_v);
  if (in_len == 0 || out_len == 0) return 0;

  // Table of last positions (+1, 0 = empty) per hash, sized to the input so small strings
  // do not pay for clearing a large table.
  int log = 8;
  while (log < kMaxHashLog && (size_t{1} << log) < in_len) log++;
  uint32_t stack_table[1 << kMaxHashLog];
  uint32_t* table = stack_table;
  memset(table, 0, sizeof(uint32_t) << log);

  size_t ip = 0;
  size_t op = 1;  // out[0] is reserved for the control byte of the first literal run
  size_t lit = 0;
  while (ip + 2 < in_len) {
    uint32_t h = Hash3(in + ip, log);
    size_t ref = table[h];
    table[h] = static_cast<uint32_t>(ip + 1);
    if (ref != 0) {
      ref--;
      size_t off = ip - ref - 1;
      if (ref < ip && off < kMaxOffset && in[ref] == in[ip] && in[ref + 1] == in[ip + 1] &&
          in[ref + 2] == in[ip + 2]) {
        size_t max = in_len - ip;
        if (max > kMaxMatch) max = kMaxMatch;
        size_t len = 3;
        while (len < max && in[ref + len] == in[ip + len]) len++;
        // Close the open literal run (or drop its reserved control byte).
        if (lit) {
          out[op - lit - 1] = static_cast<uint8_t>(lit - 1);
        } else {
          op--;
        }
        size_t l = len - 2;
        // Back reference (2 or 3 bytes) plus the control byte of the next literal run.
        if (op + 3 + 1 > out_len) return 0;
        if (l < 7) {
          out[op++] = static_cast<uint8_t>((l << 5) | (off >> 8));
        } else {
          out[op++] = static_cast<uint8_t>((7 << 5) | (off >> 8));
          out[op++] = static_cast<uint8_t>(l - 7);
        }
        out[op++] = static_cast<uint8_t>(off & 0xff);
        op++;
        lit = 0;
        // Index the last two positions of the match for better chains.
        size_t end = ip + len;
        for (size_t k = (len > 3 ? end - 2 : ip + 1); k < end && k + 2 < in_len; k++) {
          table[Hash3(in + k, log)] = static_cast<uint32_t>(k + 1);
        }
        ip = end;
        continue;
      }
    }
    if (op + 1 > out_len) return 0;
    out[op++] = in[ip++];
    if (++lit == kMaxLiteral) {
      out[op - lit - 1] = static_cast<uint8_t>(lit - 1);
      lit = 0;
      if (op + 1 > out_len) return 0;
      op++;
    }
  }
  while (ip < in_len) {
    if (op + 1 > out_len) return 0;
    out[op++] = in[ip++];
    if (++lit == kMaxLiteral) {
      out[op - lit - 1] = static_cast<uint8_t>(lit - 1);
      lit = 0;
      if (op + 1 > out_len) return 0;
      op++;
    }
  }
  if (lit) {
    out[op - lit - 1] = static_cast<uint8_t>(lit - 1);
  } else {
    op--;
  }
  return op;
}

namespace {

// 16 bytes at a time from src to dst (a fixed size: copied in registers, no call).
inline void Copy16(uint8_t* dst, const uint8_t* src) { memcpy(dst, src, 16); }

}  // namespace

size_t LzfDecompress(const void* in_v, size_t in_len, void* out_v, size_t out_len) {
  const uint8_t* ip = static_cast<const uint8_t*>(in_v);
  const uint8_t* in_end = ip + in_len;
  uint8_t* out = static_cast<uint8_t*>(out_v);
  uint8_t* op = out;
  uint8_t* out_end = out + out_len;
  // Most tokens are short: where the buffers have 32 bytes to spare past a token, it is copied
  // in whole 16-byte pieces, a few bytes too many that the next token overwrites (a call to
  // memcpy per token of a few bytes was a third of the time).
  while (ip < in_end) {
    size_t ctrl = *ip++;
    if (ctrl < 32) {
      size_t len = ctrl + 1;
      if (static_cast<size_t>(in_end - ip) < len) return 0;
      if (static_cast<size_t>(out_end - op) < len) return 0;
      if (in_end - ip >= 32 && out_end - op >= 32) {
        Copy16(op, ip);
        if (len > 16) Copy16(op + 16, ip + 16);
      } else {
        memcpy(op, ip, len);
      }
      op += len;
      ip += len;
      continue;
    }
    size_t len = ctrl >> 5;
    if (len == 7) {
      if (ip >= in_end) return 0;
      len += *ip++;
    }
    if (ip >= in_end) return 0;
    size_t off = ((ctrl & 0x1f) << 8) + *ip++ + 1;
    len += 2;
    if (static_cast<size_t>(op - out) < off) return 0;
    if (static_cast<size_t>(out_end - op) < len) return 0;
    const uint8_t* ref = op - off;
    if (off >= 16 && static_cast<size_t>(out_end - op) >= len + 16) {
      // Each piece reads bytes written before it (16 or more back).
      for (size_t done = 0; done < len; done += 16) Copy16(op + done, ref + done);
      op += len;
    } else if (off >= len) {
      memcpy(op, ref, len);
      op += len;
    } else {
      while (len--) *op++ = *ref++;
    }
  }
  return static_cast<size_t>(op - out);
}

}  // namespace base
