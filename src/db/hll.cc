// HyperLogLog string codec (see hll.h for the format).
#include "db/hll.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace db::hll {
namespace {

constexpr uint64_t kHashSeed = 0xadc83b19ULL;
constexpr double kAlphaInf = 0.721347520444481703680;  // 1 / (2 ln 2)
constexpr int kZeroMaxRun = 64;
constexpr int kValMaxRun = 4;
constexpr int kXZeroMaxRun = kRegisters;

// Opcode decoding. A two-byte XZERO cut short by the end of the string reads its missing
// second byte as 0 (Valkey reads the string's terminating NUL there).
bool IsZero(uint8_t b) { return (b & 0xc0) == 0x00; }
bool IsXZero(uint8_t b) { return (b & 0xc0) == 0x40; }
bool IsVal(uint8_t b) { return b & 0x80; }
int ValValue(uint8_t b) { return ((b >> 2) & 0x1f) + 1; }
int ValRun(uint8_t b) { return (b & 0x3) + 1; }
int ZeroRun(uint8_t b) { return (b & 0x3f) + 1; }
int XZeroRun(const uint8_t* p, const uint8_t* end) {
  return (((p[0] & 0x3f) << 8) | (p + 1 < end ? p[1] : 0)) + 1;
}
uint8_t ValOp(int value, int run) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (run - 1));
}
// Appends a run of `run` zero registers (ZERO when it fits one byte, else XZERO).
uint8_t* PutZeros(uint8_t* out, int run) {
  if (run > kZeroMaxRun) {
    out[0] = static_cast<uint8_t>(0x40 | ((run - 1) >> 8));
    out[1] = static_cast<uint8_t>((run - 1) & 0xff);
    return out + 2;
  }
  out[0] = static_cast<uint8_t>(run - 1);
  return out + 1;
}

uint8_t* Bytes(std::string* v) { return reinterpret_cast<uint8_t*>(v->data()); }
const uint8_t* Bytes(std::string_view v) { return reinterpret_cast<const uint8_t*>(v.data()); }

// Ertl, "New cardinality estimation algorithms for HyperLogLog sketches" (arXiv:1702.01284):
// sigma and tau as series evaluated until the sum stops changing.
double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double y = 1, z = x, prev;
  do {
    x *= x;
    prev = z;
    z += x * y;
    y += y;
  } while (prev != z);
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double y = 1.0, z = 1 - x, prev;
  do {
    x = std::sqrt(x);
    prev = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (prev != z);
  return z / 3;
}

// The estimate from the histogram of register values (64 slots: dense registers may hold
// values no hash produces; those above kQ + 1 only count in the tau term, as in Valkey).
uint64_t Estimate(const int* histo) {
  const double m = kRegisters;
  double z = m * Tau((m - histo[kQ + 1]) / m);
  for (int j = kQ; j >= 1; --j) {
    z += histo[j];
    z *= 0.5;
  }
  z += m * Sigma(histo[0] / m);
  return static_cast<uint64_t>(std::llround(kAlphaInf * m * m / z));
}

// Registers 16j..16j+15 live in bytes 12j..12j+11.
template <typename F>
void ForEachDenseGroup(const uint8_t* r, F f) {
  for (int j = 0; j < kRegisters / 16; j++, r += 12) {
    uint8_t g[16] = {
        static_cast<uint8_t>(r[0] & 63),
        static_cast<uint8_t>((r[0] >> 6 | r[1] << 2) & 63),
        static_cast<uint8_t>((r[1] >> 4 | r[2] << 4) & 63),
        static_cast<uint8_t>((r[2] >> 2) & 63),
        static_cast<uint8_t>(r[3] & 63),
        static_cast<uint8_t>((r[3] >> 6 | r[4] << 2) & 63),
        static_cast<uint8_t>((r[4] >> 4 | r[5] << 4) & 63),
        static_cast<uint8_t>((r[5] >> 2) & 63),
        static_cast<uint8_t>(r[6] & 63),
        static_cast<uint8_t>((r[6] >> 6 | r[7] << 2) & 63),
        static_cast<uint8_t>((r[7] >> 4 | r[8] << 4) & 63),
        static_cast<uint8_t>((r[8] >> 2) & 63),
        static_cast<uint8_t>(r[9] & 63),
        static_cast<uint8_t>((r[9] >> 6 | r[10] << 2) & 63),
        static_cast<uint8_t>((r[10] >> 4 | r[11] << 4) & 63),
        static_cast<uint8_t>((r[11] >> 2) & 63),
    };
    f(j * 16, g);
  }
}

void DenseHisto(const uint8_t* r, int* histo) {
  ForEachDenseGroup(r, [histo](int, const uint8_t* g) {
    for (int i = 0; i < 16; i++) histo[g[i]]++;
  });
}

// False when the body does not cover exactly kRegisters registers.
bool SparseHisto(const uint8_t* p, const uint8_t* end, int* histo) {
  long idx = 0;
  while (p < end) {
    if (IsZero(*p)) {
      int run = ZeroRun(*p);
      idx += run;
      histo[0] += run;
      p++;
    } else if (IsXZero(*p)) {
      int run = XZeroRun(p, end);
      idx += run;
      histo[0] += run;
      p += 2;
    } else {
      int run = ValRun(*p);
      idx += run;
      histo[ValValue(*p)] += run;
      p++;
    }
  }
  return idx == kRegisters;
}

// Rewrites the sparse body so that register `index` holds `count` (greater than its value);
// *promote when the grown form would pass sparse_max_bytes. Returns -1 on a corrupt body.
int SparseSet(std::string* v, int index, uint8_t count, size_t sparse_max_bytes, bool* promote) {
  *promote = false;
  if (count > kSparseValMax) {
    *promote = true;
    return 0;
  }
  uint8_t* const body = Bytes(v) + kHeaderSize;
  const uint8_t* end = Bytes(v) + v->size();
  // Find the opcode covering `index`, the first register it covers and the opcode before it.
  uint8_t* p = body;
  uint8_t* prev = nullptr;
  long first = 0, span = 0;
  while (p < end) {
    int oplen = 1;
    if (IsZero(*p)) {
      span = ZeroRun(*p);
    } else if (IsVal(*p)) {
      span = ValRun(*p);
    } else {
      span = XZeroRun(p, end);
      oplen = 2;
    }
    if (index <= first + span - 1) break;
    prev = p;
    p += oplen;
    first += span;
  }
  if (span == 0 || p >= end) return -1;  // the opcodes end before register `index`
  const bool xzero = IsXZero(*p);
  uint8_t* next = p + (xzero ? 2 : 1);
  if (next >= end) next = nullptr;

  if (IsVal(*p)) {
    int old = ValValue(*p);
    if (old >= count) return 0;
    if (ValRun(*p) == 1) {  // a run of one: rewritten in place
      *p = ValOp(count, 1);
      goto merge;
    }
  }
  if (IsZero(*p) && ZeroRun(*p) == 1) {
    *p = ValOp(count, 1);
    goto merge;
  }
  {
    // Split the run into (left part) VAL(count,1) (right part): at most 5 bytes.
    uint8_t seq[5], *n = seq;
    long last = first + span - 1;
    if (IsVal(*p)) {
      int cur = ValValue(*p);
      if (index != first) *n++ = ValOp(cur, static_cast<int>(index - first));
      *n++ = ValOp(count, 1);
      if (index != last) *n++ = ValOp(cur, static_cast<int>(last - index));
    } else {
      if (index != first) n = PutZeros(n, static_cast<int>(index - first));
      *n++ = ValOp(count, 1);
      if (index != last) n = PutZeros(n, static_cast<int>(last - index));
    }
    long seqlen = n - seq;
    long delta = seqlen - (xzero ? 2 : 1);
    if (delta > 0 && v->size() + static_cast<size_t>(delta) > sparse_max_bytes) {
      *promote = true;
      return 0;
    }
    size_t p_off = p - Bytes(v), prev_off = prev ? prev - Bytes(v) : 0;
    size_t next_off = next ? next - Bytes(v) : 0, old_size = v->size();
    size_t new_size = old_size + delta;
    if (delta > 0) v->resize(new_size);
    if (delta != 0 && next)
      memmove(Bytes(v) + next_off + delta, Bytes(v) + next_off, old_size - next_off);
    if (delta < 0) v->resize(new_size);
    // An XZERO cut short at the end may leave less room than the sequence: what does not fit
    // is dropped (Valkey writes it past the string's end).
    size_t room = new_size > p_off ? new_size - p_off : 0;
    memcpy(Bytes(v) + p_off, seq, std::min<size_t>(room, static_cast<size_t>(seqlen)));
    p = Bytes(v) + p_off;
    prev = prev ? Bytes(v) + prev_off : nullptr;
    end = Bytes(v) + v->size();
  }
merge:
  // Adjacent VAL opcodes of equal value whose runs fit one opcode become one; up to five
  // opcodes are looked at from the one before the change.
  {
    uint8_t* q = prev ? prev : Bytes(v) + kHeaderSize;
    int budget = 5;
    while (q < Bytes(v) + v->size() && budget-- > 0) {
      end = Bytes(v) + v->size();
      if (IsXZero(*q)) {
        q += 2;
        continue;
      }
      if (IsZero(*q)) {
        q++;
        continue;
      }
      if (q + 1 < end && IsVal(q[1]) && ValValue(q[0]) == ValValue(q[1])) {
        int run = ValRun(q[0]) + ValRun(q[1]);
        if (run <= kValMaxRun) {
          q[1] = ValOp(ValValue(q[0]), run);
          v->erase(static_cast<size_t>(q - Bytes(v)), 1);
          continue;  // q now holds the merged opcode: try the next one too
        }
      }
      q++;
    }
  }
  InvalidateCache(v);
  return 1;
}

}  // namespace

uint64_t MurmurHash64A(const void* key, size_t len, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  uint64_t h = seed ^ (static_cast<uint64_t>(len) * m);
  const uint8_t* data = static_cast<const uint8_t*>(key);
  const uint8_t* end = data + (len - (len & 7));
  for (; data != end; data += 8) {
    uint64_t k = 0;
    for (int i = 7; i >= 0; i--) k = (k << 8) | data[i];
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  // The last len % 8 bytes, little-endian.
  if (len & 7) {
    for (int i = static_cast<int>(len & 7) - 1; i >= 0; i--)
      h ^= static_cast<uint64_t>(data[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

int PatternLength(std::string_view element, int* index) {
  uint64_t hash = MurmurHash64A(element.data(), element.size(), kHashSeed);
  *index = static_cast<int>(hash & (kRegisters - 1));
  hash >>= kP;
  hash |= uint64_t{1} << kQ;  // a 1 after the last usable bit bounds the count to kQ + 1
  return 1 + __builtin_ctzll(hash);
}

std::string NewSparse() {
  std::string v(kHeaderSize, '\0');
  memcpy(v.data(), "HYLL", 4);
  v[4] = static_cast<char>(kSparse);
  uint8_t ops[2 * ((kRegisters + kXZeroMaxRun - 1) / kXZeroMaxRun)], *n = ops;
  for (int left = kRegisters; left > 0; left -= kXZeroMaxRun) {
    int run = left < kXZeroMaxRun ? left : kXZeroMaxRun;
    n[0] = static_cast<uint8_t>(0x40 | ((run - 1) >> 8));
    n[1] = static_cast<uint8_t>((run - 1) & 0xff);
    n += 2;
  }
  v.append(reinterpret_cast<const char*>(ops), n - ops);
  return v;
}

bool LooksValid(std::string_view v) {
  if (v.size() < kHeaderSize || v.substr(0, 4) != "HYLL") return false;
  uint8_t enc = Encoding(v);
  if (enc > kSparse) return false;
  return enc != kDense || v.size() == kDenseSize;
}

bool CacheValid(std::string_view v) { return (static_cast<uint8_t>(v[15]) & 0x80) == 0; }

uint64_t CachedCardinality(std::string_view v) {
  uint64_t card = 0;
  for (int i = 7; i >= 0; i--) card = (card << 8) | static_cast<uint8_t>(v[8 + i]);
  return card;
}

void SetCachedCardinality(std::string* v, uint64_t card) {
  for (int i = 0; i < 8; i++) (*v)[8 + i] = static_cast<char>((card >> (8 * i)) & 0xff);
}

void InvalidateCache(std::string* v) { (*v)[15] = static_cast<char>((*v)[15] | 0x80); }

uint8_t DenseGet(const uint8_t* regs, int index) {
  size_t byte = static_cast<size_t>(index) * 6 / 8;
  unsigned shift = (static_cast<unsigned>(index) * 6) & 7;
  unsigned lo = regs[byte];
  unsigned hi = byte + 1 < kDenseSize - kHeaderSize ? regs[byte + 1] : 0;
  return static_cast<uint8_t>(((lo >> shift) | (hi << (8 - shift))) & kRegisterMax);
}

void DenseSet(uint8_t* regs, int index, uint8_t value) {
  size_t byte = static_cast<size_t>(index) * 6 / 8;
  unsigned shift = (static_cast<unsigned>(index) * 6) & 7;
  unsigned v = value;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(kRegisterMax << shift)) | (v << shift));
  if (shift > 2) {  // the register spills into the next byte
    unsigned spill = 8 - shift;
    regs[byte + 1] =
        static_cast<uint8_t>((regs[byte + 1] & ~(kRegisterMax >> spill)) | (v >> spill));
  }
}

void DenseUnpack(const uint8_t* regs, uint8_t* out) {
  ForEachDenseGroup(regs, [out](int first, const uint8_t* g) { memcpy(out + first, g, 16); });
}

void DensePack(const uint8_t* in, uint8_t* regs) {
  for (int j = 0; j < kRegisters / 4; j++, in += 4, regs += 3) {  // 4 registers in 3 bytes
    regs[0] = static_cast<uint8_t>((in[0] & 63) | in[1] << 6);
    regs[1] = static_cast<uint8_t>(((in[1] & 63) >> 2) | in[2] << 4);
    regs[2] = static_cast<uint8_t>(((in[2] & 63) >> 4) | (in[3] & 63) << 2);
  }
}

// Walks a sparse body, calling f(first register, run, value) for each VAL run until one would
// pass the last register; true when the runs walked cover exactly the 16384 registers.
template <class F>
bool WalkSparseValues(const uint8_t* p, const uint8_t* end, F f) {
  long idx = 0;
  while (p < end) {
    if (IsZero(*p)) {
      idx += ZeroRun(*p);
      p++;
    } else if (IsXZero(*p)) {
      idx += XZeroRun(p, end);
      p += 2;
    } else {
      int run = ValRun(*p);
      if (idx + run > kRegisters) break;  // Valkey's walk stops there too
      f(idx, run, static_cast<uint8_t>(ValValue(*p)));
      idx += run;
      p++;
    }
  }
  return idx == kRegisters;
}

bool ToDense(std::string* v) {
  if (Encoding(*v) == kDense) return true;
  std::string dense(kDenseSize, '\0');
  memcpy(dense.data(), v->data(), kHeaderSize);  // magic and cached cardinality
  dense[4] = static_cast<char>(kDense);
  uint8_t* regs = Bytes(&dense) + kHeaderSize;
  bool ok = WalkSparseValues(Bytes(*v) + kHeaderSize, Bytes(*v) + v->size(),
                             [regs](long idx, int run, uint8_t value) {
                               for (; run > 0; run--) DenseSet(regs, static_cast<int>(idx++), value);
                             });
  if (!ok) return false;
  *v = std::move(dense);
  return true;
}

int SetRegister(std::string* v, int index, uint8_t count, size_t sparse_max_bytes) {
  if (Encoding(*v) == kSparse) {
    bool promote;
    int r = SparseSet(v, index, count, sparse_max_bytes, &promote);
    if (!promote) return r;
    if (!ToDense(v)) return -1;
    // Promotion only happens for a register that must grow: the dense set changes it.
  } else if (Encoding(*v) != kDense) {
    return -1;
  }
  uint8_t* regs = Bytes(v) + kHeaderSize;
  if (count <= DenseGet(regs, index)) return 0;
  DenseSet(regs, index, count);
  return 1;
}

int Add(std::string* v, std::string_view element, size_t sparse_max_bytes) {
  int index;
  int count = PatternLength(element, &index);
  return SetRegister(v, index, static_cast<uint8_t>(count), sparse_max_bytes);
}

bool MergeInto(uint8_t* max, std::string_view v) {
  if (Encoding(v) == kDense) {
    ForEachDenseGroup(Bytes(v) + kHeaderSize, [max](int first, const uint8_t* g) {
      for (int i = 0; i < 16; i++) max[first + i] = std::max(max[first + i], g[i]);
    });
    return true;
  }
  return WalkSparseValues(Bytes(v) + kHeaderSize, Bytes(v) + v.size(),
                          [max](long idx, int run, uint8_t value) {
                            for (; run > 0; run--, idx++)
                              if (value > max[idx]) max[idx] = value;
                          });
}

uint64_t Count(std::string_view v, bool* invalid) {
  int histo[64] = {};
  if (Encoding(v) == kDense) {
    DenseHisto(Bytes(v) + kHeaderSize, histo);
  } else if (!SparseHisto(Bytes(v) + kHeaderSize, Bytes(v) + v.size(), histo)) {
    *invalid = true;
  }
  return Estimate(histo);
}

uint64_t CountRaw(const uint8_t* regs) {
  int histo[64] = {};
  for (int i = 0; i < kRegisters; i += 8) {
    uint64_t word;
    memcpy(&word, regs + i, 8);
    if (word == 0) {
      histo[0] += 8;
      continue;
    }
    for (int j = 0; j < 8; j++) histo[regs[i + j] & 63]++;
  }
  return Estimate(histo);
}

std::string DecodeSparse(std::string_view v) {
  std::string out;
  const uint8_t* p = Bytes(v) + kHeaderSize;
  const uint8_t* end = Bytes(v) + v.size();
  char buf[32];
  while (p < end) {
    if (IsZero(*p)) {
      snprintf(buf, sizeof(buf), "z:%d ", ZeroRun(*p));
      p++;
    } else if (IsXZero(*p)) {
      snprintf(buf, sizeof(buf), "Z:%d ", XZeroRun(p, end));
      p += 2;
    } else {
      snprintf(buf, sizeof(buf), "v:%d,%d ", ValValue(*p), ValRun(*p));
      p++;
    }
    out += buf;
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace db::hll
