// HyperLogLog values: the codec of the "HYLL" string format that Valkey and Redis store (a
// 16-byte header, then 16384 registers either dense, 6 bits each, or sparse, run-length coded),
// register updates with the sparse-to-dense promotion, merges and the cardinality estimate.
// Pure: works on byte strings, knows nothing of keys or clients.
//
// Header: "HYLL", encoding (0 dense, 1 sparse), 3 unused bytes, the cached cardinality as 8
// little-endian bytes whose top bit (bit 7 of byte 15) marks the cache stale.
// Dense: 12288 bytes, register i in bits 6i..6i+5 counted from the least significant bit of
// byte 0 upwards.
// Sparse opcodes: ZERO 00llllll (l+1 zero registers, 1-64), XZERO 01llllll llllllll (l+1,
// 1-16384), VAL 1vvvvvll (value v+1 in 1-32, run l+1 in 1-4). A valid sparse value covers
// exactly 16384 registers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace db::hll {

inline constexpr int kP = 14;
inline constexpr int kRegisters = 1 << kP;  // 16384
inline constexpr int kQ = 64 - kP;          // hash bits left for the run of zeros
inline constexpr int kRegisterMax = 63;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kDenseSize = kHeaderSize + kRegisters * 6 / 8;  // 12304
inline constexpr uint8_t kDense = 0;
inline constexpr uint8_t kSparse = 1;
inline constexpr int kSparseValMax = 32;  // larger register values need the dense encoding
inline constexpr size_t kDefaultSparseMaxBytes = 3000;

// MurmurHash2, 64-bit variant (MurmurHash64A), reading the key as little-endian words.
uint64_t MurmurHash64A(const void* key, size_t len, uint64_t seed);

// The register an element maps to and the length of its 0...01 pattern (1 to kQ + 1).
int PatternLength(std::string_view element, int* index);

// A new empty HLL: sparse, every register zero (XZERO runs), cached cardinality 0 and valid.
std::string NewSparse();

// The header checks a command makes before touching a string as an HLL: long enough for the
// header, the magic, a known encoding, and the exact dense size. Sparse bodies are checked by
// the operations that walk them.
bool LooksValid(std::string_view v);
inline uint8_t Encoding(std::string_view v) { return static_cast<uint8_t>(v[4]); }

bool CacheValid(std::string_view v);
uint64_t CachedCardinality(std::string_view v);
void SetCachedCardinality(std::string* v, uint64_t card);
void InvalidateCache(std::string* v);

// Dense register access on a 12288-byte register array.
uint8_t DenseGet(const uint8_t* regs, int index);
void DenseSet(uint8_t* regs, int index, uint8_t value);

// All registers of a dense value as one byte each, and back (out/regs: 12288 bytes).
void DenseUnpack(const uint8_t* regs, uint8_t* out);
void DensePack(const uint8_t* in, uint8_t* regs);

// Raises register `index` to `count` when it is lower. Returns 1 if a register changed, 0 if
// not, -1 when the sparse body is corrupt (the value may then be partly edited, as Valkey's).
// A sparse value is promoted to dense when `count` exceeds kSparseValMax or the sparse form
// would grow past `sparse_max_bytes` (header included).
int SetRegister(std::string* v, int index, uint8_t count, size_t sparse_max_bytes);
// PatternLength + SetRegister.
int Add(std::string* v, std::string_view element, size_t sparse_max_bytes);

// Sparse to dense in place (a dense value is left as is), keeping the header's cache bytes.
// False (value untouched) when the sparse body does not cover exactly 16384 registers.
bool ToDense(std::string* v);

// max[i] = max(max[i], register i of v) for a value that passed LooksValid. False when a
// sparse body is corrupt (as Valkey, runs after the 16384th register are ignored).
bool MergeInto(uint8_t* max, std::string_view v);

// The estimate (Ertl's improved estimator) of a value that passed LooksValid; *invalid is set
// when a sparse body does not cover exactly 16384 registers.
uint64_t Count(std::string_view v, bool* invalid);
// The estimate over kRegisters one-byte registers (PFCOUNT of several keys).
uint64_t CountRaw(const uint8_t* regs);

// PFDEBUG DECODE's text of a sparse body: "Z:n", "z:n", "v:value,run", blank-separated.
std::string DecodeSparse(std::string_view v);

}  // namespace db::hll
