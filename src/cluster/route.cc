// The routing decision, the re-check of blocked clients, and the error lines (see route.h).
#include "cluster/route.h"

#include <charconv>

#include "base/crc16.h"

namespace cluster {

namespace {

RouteDecision Decide(RouteKind kind, int slot, NodeHandle target = kNoNode) {
  return RouteDecision{kind, slot, target};
}

}  // namespace

RouteDecision Route(const RouteInput& in) {
  const NodeView& node = in.node;
  // Rules 0 and 1: nothing to check.
  if (node.redirection_disabled || in.cmd.exec_without_multi) return {};

  // P: on a primary, myself. A replica reads slots of P's shard (rules 2a and 8).
  const NodeHandle my_primary = node.is_primary ? node.myself : node.my_primary;
  // Shard pub/sub channels stay served by the source until ownership changes: their existence
  // is never counted (rule 2c).
  const bool count_existence = !in.cmd.pubsub;

  int slot = -1;
  NodeHandle owner = kNoNode;
  NodeHandle migrating_to = kNoNode;
  bool mig = false, imp = false, multi_keys = false;
  int present = 0, missing = 0;
  for (size_t i = 0; i < in.keys.size(); i++) {
    const std::string_view key = in.keys[i];
    const int key_slot = base::KeySlot(key);
    if (i == 0) {
      // Rule 2a: the first key fixes the slot; an unbound slot is answered at once.
      slot = key_slot;
      const SlotState st = in.slot_state(slot);
      if (st.owner == kNoNode) return Decide(RouteKind::kDownUnbound, slot);
      owner = st.owner;
      migrating_to = st.migrating_to;
      // Open-slot rules apply on a primary, and on a replica only for a READONLY client.
      if (node.is_primary || in.client.readonly) {
        if (owner == my_primary && st.migrating_to != kNoNode) {
          mig = true;
        } else if (st.importing_from != kNoNode) {
          imp = true;
        }
      }
    } else {
      // Rule 2b: every later key must share the slot; on an importing slot, note a second
      // distinct key.
      if (key_slot != slot) return Decide(RouteKind::kCrossSlot, slot);
      if (imp && !multi_keys && key != in.keys[0]) multi_keys = true;
    }
    // Rule 2c.
    if ((mig || imp) && count_existence) {
      if (in.key_exists(key)) {
        present++;
      } else {
        missing++;
      }
    }
  }

  // Rule 3.
  if (slot < 0) return {};

  // Rule 4: a keyed request while the cluster is down.
  if (!node.cluster_ok) {
    if (in.cmd.pubsub) {
      if (!node.allow_pubsubshard_when_down) return Decide(RouteKind::kDownState, slot);
    } else if (!node.allow_reads_when_down) {
      return Decide(RouteKind::kDownState, slot);
    } else if (in.cmd.write) {
      return Decide(RouteKind::kDownReadOnly, slot);
    }
  }

  // Rule 5: MIGRATE moves keys of an open slot freely, on a primary.
  if ((mig || imp) && in.cmd.migrate && node.is_primary) return Decide(RouteKind::kServe, slot);

  // Rule 6: the source lacks some keys: they moved (ASK) or are moving (TRYAGAIN).
  if (mig && missing > 0) {
    if (present > 0) return Decide(RouteKind::kTryAgain, slot);
    return Decide(RouteKind::kAsk, slot, migrating_to);
  }

  // Rule 7: the target serves an ASKING client, unless several distinct keys are not all here.
  if (imp && (in.client.asking || in.cmd.asking)) {
    if (multi_keys && missing > 0) return Decide(RouteKind::kTryAgain, slot);
    return Decide(RouteKind::kServe, slot);
  }

  // Rule 8: a replica serves reads (and shard pub/sub) of its primary's slots.
  if ((in.client.readonly || in.cmd.pubsub) && !in.cmd.write && !node.is_primary &&
      owner == my_primary) {
    return Decide(RouteKind::kServe, slot);
  }

  // Rule 9.
  if (owner == node.myself) return Decide(RouteKind::kServe, slot);
  return Decide(RouteKind::kMoved, slot, owner);
}

RouteDecision RouteBlocked(const BlockedInput& in) {
  const NodeView& node = in.node;
  // Even with reads allowed while down: the write the client waits for may never come.
  if (!node.cluster_ok) return Decide(RouteKind::kDownState, -1);

  const int slot = base::KeySlot(in.first_key);
  const SlotState st = in.slot_state(slot);
  NodeHandle owner = st.owner;
  if (in.readonly && !in.last_cmd_write && !node.is_primary && owner != kNoNode &&
      owner == node.my_primary) {
    owner = node.myself;
  }
  if (owner != node.myself && st.importing_from == kNoNode) {
    if (owner == kNoNode) return Decide(RouteKind::kDownUnbound, slot);
    return Decide(RouteKind::kMoved, slot, owner);
  }
  return Decide(RouteKind::kServe, slot);
}

std::string_view RouteErrorText(RouteKind kind) {
  switch (kind) {
    case RouteKind::kTryAgain:
      return "TRYAGAIN Multiple keys request during rehashing of slot";
    case RouteKind::kCrossSlot:
      return "CROSSSLOT Keys in request don't hash to the same slot";
    case RouteKind::kDownUnbound:
      return "CLUSTERDOWN Hash slot not served";
    case RouteKind::kDownState:
      return "CLUSTERDOWN The cluster is down";
    case RouteKind::kDownReadOnly:
      return "CLUSTERDOWN The cluster is down and only accepts read commands";
    case RouteKind::kServe:
    case RouteKind::kMoved:
    case RouteKind::kAsk:
      break;
  }
  return {};
}

std::string FormatRedirect(const RouteDecision& decision, std::string_view endpoint, int port) {
  if (decision.kind != RouteKind::kMoved && decision.kind != RouteKind::kAsk) {
    return std::string(RouteErrorText(decision.kind));
  }
  char num[16];
  std::string out(decision.kind == RouteKind::kMoved ? "MOVED " : "ASK ");
  out.reserve(out.size() + 8 + endpoint.size() + 8);
  auto r = std::to_chars(num, num + sizeof(num), decision.slot);
  out.append(num, r.ptr);
  out.push_back(' ');
  out.append(endpoint);
  out.push_back(':');
  r = std::to_chars(num, num + sizeof(num), port);
  out.append(num, r.ptr);
  return out;
}

}  // namespace cluster
