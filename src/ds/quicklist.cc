// Quicklist operations over listpack nodes.
#include "ds/quicklist.h"

#include <climits>
#include <cstdlib>
#include <cstring>

#include "base/lzf.h"
#include "ds/listpack.h"

namespace ds {

namespace {
constexpr size_t kSizeSafetyLimit = 8192;
constexpr size_t kLevels[] = {4096, 8192, 16384, 32768, 65536};
}  // namespace

void Quicklist::Limits(int fill, size_t* bytes, size_t* count) {
  if (fill >= 0) {
    *bytes = SIZE_MAX;
    *count = fill == 0 ? 1 : static_cast<size_t>(fill);
  } else {
    size_t level = static_cast<size_t>(-fill) - 1;
    if (level >= 5) level = 4;
    *bytes = kLevels[level];
    *count = UINT_MAX;
  }
}

bool Quicklist::ExceedsLimit(int fill, size_t bytes, size_t count) {
  size_t bl, cl;
  Limits(fill, &bl, &cl);
  if (bl != SIZE_MAX) return bytes > bl;
  if (bytes > kSizeSafetyLimit) return true;
  return count > cl;
}

Quicklist::~Quicklist() {
  for (auto& n : nodes_) free(n.lp);  // plain or compressed, both malloc'd
}

size_t Quicklist::Bytes() const {
  size_t b = sizeof(*this) + nodes_.capacity() * sizeof(QuicklistNode);
  for (auto& n : nodes_) b += n.csize ? n.csize : lp::Bytes(n.lp);
  return b;
}

size_t Quicklist::FirstNodeBytes() const { return nodes_.empty() ? 0 : lp::Bytes(Open(0)); }

size_t Quicklist::CompressedNodes() const {
  size_t n = 0;
  for (auto& x : nodes_) n += x.csize > 0;
  return n;
}

uint8_t* Quicklist::Open(size_t ni) const {
  QuicklistNode& n = nodes_[ni];
  if (!n.csize) return n.lp;
  auto* raw = static_cast<uint8_t*>(malloc(n.rawsize));
  size_t got = base::LzfDecompress(n.lp, n.csize, raw, n.rawsize);
  // Our own compressed bytes: a failure here is a memory corruption, not bad input.
  if (got != n.rawsize) abort();
  free(n.lp);
  n.lp = raw;
  n.csize = n.rawsize = 0;
  return raw;
}

void Quicklist::Settle(size_t ni) const {
  if (ni >= nodes_.size()) return;
  bool inner = depth_ > 0 && ni >= static_cast<size_t>(depth_) &&
               ni + static_cast<size_t>(depth_) < nodes_.size();
  QuicklistNode& n = nodes_[ni];
  if (!inner) {
    Open(ni);
    return;
  }
  if (n.csize) return;
  size_t bytes = lp::Bytes(n.lp);
  if (bytes < 48) return;  // too small to be worth it
  std::vector<uint8_t> out(bytes);
  size_t c = base::LzfCompress(n.lp, bytes, out.data(), bytes - 8);
  if (c == 0) return;  // does not save at least 8 bytes
  auto* packed = static_cast<uint8_t*>(malloc(c));
  memcpy(packed, out.data(), c);
  free(n.lp);
  n.lp = packed;
  n.csize = static_cast<uint32_t>(c);
  n.rawsize = static_cast<uint32_t>(bytes);
}

void Quicklist::Rebalance(std::initializer_list<size_t> touched) const {
  if (depth_ <= 0) return;
  size_t n = nodes_.size(), d = static_cast<size_t>(depth_);
  for (size_t i : {d - 1, d, d + 1}) Settle(i);
  if (n >= d + 2)
    for (size_t i : {n - d - 2, n - d - 1, n - d}) Settle(i);
  for (size_t i : touched) Settle(i);
}

void Quicklist::RebalanceAll() const {
  if (depth_ <= 0) return;
  for (size_t i = 0; i < nodes_.size(); i++) Settle(i);
}

Quicklist* Quicklist::Clone() const {
  auto* q = new Quicklist(fill_, depth_);
  for (auto& n : nodes_) {
    size_t bytes = n.csize ? n.csize : lp::Bytes(n.lp);
    auto* d = static_cast<uint8_t*>(malloc(bytes));
    memcpy(d, n.lp, bytes);
    q->nodes_.push_back({d, n.count, n.csize, n.rawsize});
  }
  q->count_ = count_;
  return q;
}

void Quicklist::AppendListpack(uint8_t* l) {
  size_t c = lp::Length(l);
  if (c == 0) {
    lp::Free(l);
    return;
  }
  nodes_.push_back({l, static_cast<uint32_t>(c)});
  count_ += c;
}

uint8_t* Quicklist::TakeSingleListpack() {
  uint8_t* l = nodes_.empty() ? lp::New() : Open(0);
  nodes_.clear();
  count_ = 0;
  return l;
}

void Quicklist::MoveNodesTo(Quicklist* other) {
  for (auto& n : nodes_) other->nodes_.push_back(n);
  other->count_ += count_;
  nodes_.clear();
  count_ = 0;
  other->RebalanceAll();
}

bool Quicklist::NodeAllows(size_t ni, size_t add_bytes) const {
  // Entry overhead is at most 9 bytes of header plus 5 of back length.
  return !ExceedsLimit(fill_, lp::Bytes(Open(ni)) + add_bytes + 14, nodes_[ni].count + 1);
}

void Quicklist::PushHead(std::string_view s) {
  bool fresh = nodes_.empty() || !NodeAllows(0, s.size());
  if (fresh) nodes_.insert(nodes_.begin(), QuicklistNode{lp::New(), 0});
  nodes_.front().lp = lp::Prepend(Open(0), s);
  nodes_.front().count++;
  count_++;
  if (fresh) Rebalance();
}

void Quicklist::PushTail(std::string_view s) {
  bool fresh = nodes_.empty() || !NodeAllows(nodes_.size() - 1, s.size());
  if (fresh) nodes_.push_back(QuicklistNode{lp::New(), 0});
  nodes_.back().lp = lp::Append(Open(nodes_.size() - 1), s);
  nodes_.back().count++;
  count_++;
  if (fresh) Rebalance();
}

void Quicklist::DropNodeIfEmpty(size_t ni) {
  if (nodes_[ni].count == 0) {
    free(nodes_[ni].lp);
    nodes_.erase(nodes_.begin() + ni);
    Rebalance();
  }
}

bool Quicklist::PopHead(std::string* out) {
  if (!count_) return false;
  QuicklistNode& n = nodes_.front();
  Open(0);
  uint8_t* p = lp::First(n.lp);
  char buf[24];
  out->assign(lp::Get(p).View(buf));
  n.lp = lp::Delete(n.lp, p, nullptr);
  n.count--;
  count_--;
  DropNodeIfEmpty(0);
  return true;
}

bool Quicklist::PopTail(std::string* out) {
  if (!count_) return false;
  QuicklistNode& n = nodes_.back();
  Open(nodes_.size() - 1);
  uint8_t* p = lp::Last(n.lp);
  char buf[24];
  out->assign(lp::Get(p).View(buf));
  n.lp = lp::Delete(n.lp, p, nullptr);
  n.count--;
  count_--;
  DropNodeIfEmpty(nodes_.size() - 1);
  return true;
}

size_t Quicklist::Locate(size_t index, size_t* offset) const {
  if (index < count_ / 2) {
    for (size_t i = 0; i < nodes_.size(); i++) {
      if (index < nodes_[i].count) {
        *offset = index;
        return i;
      }
      index -= nodes_[i].count;
    }
  } else {
    size_t from_end = count_ - 1 - index;
    for (size_t i = nodes_.size(); i-- > 0;) {
      if (from_end < nodes_[i].count) {
        *offset = nodes_[i].count - 1 - from_end;
        return i;
      }
      from_end -= nodes_[i].count;
    }
  }
  *offset = 0;
  return nodes_.size();
}

bool Quicklist::Get(long index, std::string* out) const {
  if (index < 0) index += static_cast<long>(count_);
  if (index < 0 || static_cast<size_t>(index) >= count_) return false;
  size_t off;
  size_t ni = Locate(index, &off);
  char buf[24];
  out->assign(lp::Get(lp::Seek(Open(ni), static_cast<long>(off))).View(buf));
  Settle(ni);
  return true;
}

bool Quicklist::Set(long index, std::string_view s) {
  if (index < 0) index += static_cast<long>(count_);
  if (index < 0 || static_cast<size_t>(index) >= count_) return false;
  size_t off;
  size_t ni = Locate(index, &off);
  QuicklistNode& n = nodes_[ni];
  uint8_t* p = lp::Seek(Open(ni), static_cast<long>(off));
  n.lp = lp::Replace(n.lp, &p, s);
  // A big replacement may push the node over its budget: split it in two halves.
  if (n.count > 1 && ExceedsLimit(fill_, lp::Bytes(n.lp), n.count)) {
    std::vector<std::string> tail;
    size_t keep = n.count / 2;
    uint8_t* q = lp::Seek(n.lp, static_cast<long>(keep));
    char buf[24];
    while (q) {
      tail.emplace_back(lp::Get(q).View(buf));
      q = lp::Next(n.lp, q);
    }
    n.lp = lp::DeleteRange(n.lp, static_cast<long>(keep), n.count - keep);
    n.count = static_cast<uint32_t>(keep);
    uint8_t* nl = lp::New();
    for (auto& t : tail) nl = lp::Append(nl, t);
    nodes_.insert(nodes_.begin() + ni + 1, QuicklistNode{nl, static_cast<uint32_t>(tail.size())});
  }
  Rebalance({ni, ni + 1});
  return true;
}

void Quicklist::InsertAt(size_t index, std::string_view s, bool after) {
  size_t off;
  size_t ni = Locate(index, &off);
  QuicklistNode& n = nodes_[ni];
  if (NodeAllows(ni, s.size())) {
    uint8_t* p = lp::Seek(n.lp, static_cast<long>(off));
    n.lp = lp::Insert(n.lp, p, s, after, nullptr);
    n.count++;
    count_++;
    Settle(ni);
    return;
  }
  // The node is full: split it at the insertion point and put s in its own place.
  size_t split = after ? off + 1 : off;
  uint8_t* right = lp::New();
  uint32_t moved = 0;
  if (split < n.count) {
    char buf[24];
    for (uint8_t* q = lp::Seek(n.lp, static_cast<long>(split)); q; q = lp::Next(n.lp, q)) {
      right = lp::Append(right, lp::Get(q).View(buf));
      moved++;
    }
    n.lp = lp::DeleteRange(n.lp, static_cast<long>(split), moved);
    n.count -= moved;
  }
  uint8_t* mid = lp::Append(lp::New(), s);
  std::vector<QuicklistNode> add{{mid, 1}};
  if (moved)
    add.push_back({right, moved});
  else
    lp::Free(right);
  nodes_.insert(nodes_.begin() + ni + 1, add.begin(), add.end());
  count_++;
  if (nodes_[ni].count == 0) DropNodeIfEmpty(ni);
  RebalanceAll();  // a split in the middle: cheap enough next to the copy it made
}

void Quicklist::DeleteRange(size_t index, size_t n) {
  while (n > 0 && index < count_) {
    size_t off;
    size_t ni = Locate(index, &off);
    QuicklistNode& node = nodes_[ni];
    size_t here = std::min<size_t>(n, node.count - off);
    if (here == node.count) {
      free(node.lp);
      nodes_.erase(nodes_.begin() + ni);
    } else {
      node.lp = lp::DeleteRange(Open(ni), static_cast<long>(off), here);
      node.count -= static_cast<uint32_t>(here);
    }
    count_ -= here;
    n -= here;
  }
  RebalanceAll();
}

void Quicklist::Walk(size_t index, bool reverse,
                     const std::function<bool(size_t, std::string_view)>& fn) const {
  if (index >= count_) return;
  size_t off;
  size_t ni = Locate(index, &off);
  char buf[24];
  size_t idx = index;
  if (!reverse) {
    for (; ni < nodes_.size(); ni++, off = 0) {
      uint8_t* l = Open(ni);
      bool stop = false;
      for (uint8_t* p = lp::Seek(l, static_cast<long>(off)); p && !stop; p = lp::Next(l, p))
        stop = !fn(idx++, lp::Get(p).View(buf));
      Settle(ni);
      if (stop) return;
    }
  } else {
    for (;;) {
      uint8_t* l = Open(ni);
      bool stop = false;
      for (uint8_t* p = lp::Seek(l, static_cast<long>(off)); p && !stop; p = lp::Prev(l, p))
        stop = !fn(idx--, lp::Get(p).View(buf));
      Settle(ni);
      if (stop || ni == 0) return;
      ni--;
      off = nodes_[ni].count - 1;
    }
  }
}

size_t Quicklist::Remove(std::string_view s, size_t limit, bool from_tail) {
  size_t removed = 0;
  if (!from_tail) {
    for (size_t ni = 0; ni < nodes_.size() && (!limit || removed < limit);) {
      QuicklistNode& n = nodes_[ni];
      uint8_t* p = lp::First(Open(ni));
      while (p && (!limit || removed < limit)) {
        if (lp::Get(p).Equals(s)) {
          n.lp = lp::Delete(n.lp, p, &p);
          n.count--;
          count_--;
          removed++;
        } else {
          p = lp::Next(n.lp, p);
        }
      }
      if (n.count == 0)
        DropNodeIfEmpty(ni);
      else
        ni++;
    }
  } else {
    for (size_t ni = nodes_.size(); ni-- > 0 && (!limit || removed < limit);) {
      QuicklistNode& n = nodes_[ni];
      uint8_t* p = lp::Last(Open(ni));
      while (p && (!limit || removed < limit)) {
        uint8_t* prev = lp::Prev(n.lp, p);
        if (lp::Get(p).Equals(s)) {
          // Deleting moves bytes after p only: entries before p keep their offsets.
          size_t prev_off = prev ? prev - n.lp : 0;
          n.lp = lp::Delete(n.lp, p, nullptr);
          n.count--;
          count_--;
          removed++;
          p = prev ? n.lp + prev_off : nullptr;
        } else {
          p = prev;
        }
      }
      if (n.count == 0) DropNodeIfEmpty(ni);
    }
  }
  RebalanceAll();
  return removed;
}

}  // namespace ds
