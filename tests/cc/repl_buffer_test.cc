// repl::ReplBuffer, the replication stream held once for the backlog and every replica: bytes
// read back from any held offset equal the stream, readers keep their blocks from the trim,
// the backlog keeps at least its size, blocks are sized as Valkey 8 sizes them.
#include "repl/repl_buffer.h"

#include <random>
#include <string>

#include "check.h"

namespace {
using repl::ReplBuffer;

// What a reader at p would be sent: the spans from p on.
std::string ReadAll(const ReplBuffer& b, ReplBuffer::Pos p) {
  std::string out;
  iovec iov[8];
  while (true) {
    size_t n = b.Gather(p, iov, 8, SIZE_MAX);
    if (n == 0) break;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
      out.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      bytes += iov[i].iov_len;
    }
    p = b.Advance(p, bytes);
  }
  return out;
}

std::string Bytes(std::mt19937* rng, size_t n) {
  std::string s(n, 0);
  for (char& c : s) c = static_cast<char>('a' + (*rng)() % 26);
  return s;
}
}  // namespace

TEST_CASE(ReplBufferReadsBackTheStreamFromEveryHeldOffset) {
  std::mt19937 rng(7);
  ReplBuffer b(100 * 1024, 1000);  // the stream is at offset 1000 when the buffer starts
  CHECK_EQ(b.histlen(), 0u);
  CHECK_EQ(b.first_offset(), 1001);
  ReplBuffer::Pos p;
  CHECK(b.PosOf(1001, &p));  // nothing yet: a reader there waits for the next byte
  CHECK_EQ(b.PendingFrom(p), 0u);
  CHECK(!b.PosOf(1000, &p));
  std::string stream;
  // Writes of every size: a few bytes, a block's worth, several blocks at once.
  for (int i = 0; i < 400; i++) {
    size_t n = i % 50 == 0 ? 40000 + rng() % 30000 : rng() % 700;
    std::string s = Bytes(&rng, n);
    b.Append(s);
    stream += s;
  }
  CHECK_EQ(b.end_offset(), 1000 + static_cast<int64_t>(stream.size()));
  CHECK_EQ(b.histlen(), stream.size());  // no trim yet: everything is held
  for (int k = 0; k < 300; k++) {
    int64_t from = 1001 + static_cast<int64_t>(rng() % (stream.size() + 1));
    CHECK(b.PosOf(from, &p));
    CHECK_EQ(b.OffsetOf(p), from);
    CHECK_EQ(b.PendingFrom(p), stream.size() - static_cast<size_t>(from - 1001));
    CHECK(ReadAll(b, p) == stream.substr(static_cast<size_t>(from - 1001)));
  }
  CHECK(!b.PosOf(1001 + static_cast<int64_t>(stream.size()) + 1, &p));  // past the end
}

TEST_CASE(ReplBufferTrimKeepsTheLimitAndEveryReadersBlocks) {
  std::mt19937 rng(11);
  const size_t limit = 64 * 1024;
  ReplBuffer b(limit, 0);
  std::string stream;
  ReplBuffer::Pos slow = b.EndPos();  // a replica that reads nothing
  for (int i = 0; i < 200; i++) {
    std::string s = Bytes(&rng, 5000);
    b.Append(s);
    stream += s;
    b.Trim(slow.block, 1 << 20);
  }
  // The slow reader holds everything: the backlog outgrew its limit.
  CHECK_EQ(b.histlen(), stream.size());
  CHECK(ReadAll(b, slow) == stream);
  size_t nblocks = 0;
  CHECK_EQ(b.HeldFrom(slow, &nblocks) >= stream.size(), true);
  CHECK_EQ(nblocks, b.blocks());
  size_t before = b.allocated();
  // It leaves (or catches up): the trim frees down to the limit, a bounded number a call.
  // About the bytes asked for, whole blocks (16 KB each here), at least one.
  CHECK_EQ(b.Trim(UINT64_MAX, 40000), 3u);
  CHECK_EQ(b.Trim(UINT64_MAX, 1), 1u);
  while (b.Trim(UINT64_MAX, 1 << 20) > 0) {
  }
  CHECK(b.allocated() < before);
  CHECK(b.histlen() >= limit);
  CHECK(b.histlen() < limit + 16 * 1024 + 5000);  // within one block of the limit
  CHECK_EQ(b.first_offset(), static_cast<int64_t>(stream.size() - b.histlen()) + 1);
  ReplBuffer::Pos p;
  CHECK(b.PosOf(b.first_offset(), &p));
  CHECK(ReadAll(b, p) == stream.substr(stream.size() - b.histlen()));
  CHECK(!b.PosOf(b.first_offset() - 1, &p));  // trimmed: no partial resync from there

  // A reader in the middle stops the trim at its block, not before.
  CHECK(b.PosOf(b.end_offset() - 1000, &p));
  for (int i = 0; i < 100; i++) b.Append(Bytes(&rng, 5000));
  while (b.Trim(p.block, 1 << 20) > 0) {
  }
  CHECK(b.first_offset() <= b.OffsetOf(p));
  CHECK_EQ(b.PendingFrom(p), 1001u + 500000u);  // end - 1000 .. end, then the new bytes
}

TEST_CASE(ReplBufferBlocksAreSizedFromTheLimit) {
  // At least 16 KB, at most a 16th of the limit: a 1 MB write into a 1 MB backlog is cut into
  // blocks of about 64 KB; into a small backlog, of 16 KB.
  ReplBuffer big(1 << 20, 0);
  big.Append(std::string(1 << 20, 'x'));
  CHECK(big.blocks() >= 15 && big.blocks() <= 17);
  ReplBuffer small(16 * 1024, 0);
  small.Append(std::string(1 << 20, 'x'));
  CHECK(small.blocks() >= 64 && small.blocks() <= 66);  // 16 KB less its header each
  // Small writes share a block.
  ReplBuffer b(1 << 20, 0);
  for (int i = 0; i < 100; i++) b.Append("*1\r\n$4\r\nPING\r\n");
  CHECK_EQ(b.blocks(), 1u);
  // A reader at the end of a full block moves on to the next one (the full one can go).
  ReplBuffer f(16 * 1024, 0);
  ReplBuffer::Pos start = f.EndPos();
  f.Append(std::string(200000, 'y'));
  ReplBuffer::Pos end = f.Advance(start, 200000);
  CHECK_EQ(f.OffsetOf(end), 200001);
  CHECK_EQ(f.PendingFrom(end), 0u);
  // Having read everything, it holds at most the tail block.
  size_t held_blocks = 9;
  f.HeldFrom(end, &held_blocks);
  CHECK(held_blocks <= 1);
}
