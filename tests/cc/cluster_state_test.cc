// cluster::State's node index: Find by name through Add, Rename and Remove, as a scan of the
// nodes in order would answer.
#include <string>

#include "check.h"
#include "cluster/state.h"

namespace {

using cluster::Node;
using cluster::State;

const std::string kA(40, 'a'), kB(40, 'b'), kC(40, 'c');

TEST_CASE(ClusterStateFindsNodesByName) {
  State st;
  Node* a = st.Add(kA, 0, 0);
  Node* b = st.Add(kB, 0, 0);
  CHECK(st.Find(kA) == a);
  CHECK(st.Find(kB) == b);
  CHECK(st.Find(kC) == nullptr);
  CHECK(st.Find("") == nullptr);
  // A handshake node (random name) learns its real one.
  Node* h = st.Add("", 0, 0);
  std::string random = h->name;
  CHECK(st.Find(random) == h);
  st.Rename(h, kC);
  CHECK(st.Find(kC) == h);
  CHECK(st.Find(random) == nullptr);
  st.Remove(b);
  CHECK(st.Find(kB) == nullptr);
  CHECK(st.Find(kA) == a);
  CHECK(st.Find(kC) == h);
  CHECK_EQ(st.nodes.size(), 2u);
}

TEST_CASE(ClusterStateIndexKeepsTheFirstOfTwoNamesakes) {
  // Two nodes never share a name for long (a duplicate handshake is deleted), but meanwhile
  // Find answers the earlier one, and the later one once the earlier is gone.
  State st;
  Node* first = st.Add(kA, 0, 0);
  Node* h = st.Add("", 0, 0);
  st.Rename(h, kA);
  CHECK(st.Find(kA) == first);
  st.Remove(first);
  CHECK(st.Find(kA) == h);
  st.Rename(h, kB);
  CHECK(st.Find(kA) == nullptr);
  CHECK(st.Find(kB) == h);
  // The state moves whole (nodes.conf is parsed into a State then moved in).
  State moved = std::move(st);
  CHECK(moved.Find(kB) == h);
}

TEST_CASE(ClusterStateKeepsReplicasSortedByName) {
  // Every node lists a primary's replicas in one order (CLUSTER SLOTS must be the same bytes
  // everywhere), whatever order it learned them in: by name, as Valkey 8.
  State st;
  Node* p = st.Add(kA, cluster::kNodePrimary, 0);
  Node* c = st.Add(kC, 0, 0);
  Node* b = st.Add(kB, 0, 0);
  st.SetPrimary(c, p);
  st.SetPrimary(b, p);
  CHECK(p->replicas.size() == 2 && p->replicas[0] == b && p->replicas[1] == c);
  st.SetPrimary(b, p);  // told again: no duplicate
  CHECK_EQ(p->replicas.size(), 2u);
  const std::string k0(40, '0');
  st.Rename(c, k0);  // a name that sorts first
  CHECK(p->replicas[0] == c && p->replicas[1] == b);
  st.SetPrimary(c, nullptr);
  CHECK(p->replicas.size() == 1 && p->replicas[0] == b);
}

}  // namespace
