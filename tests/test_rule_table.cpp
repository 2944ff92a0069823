// The diagnosis rule table is complete: every rule has its parts, every cause id belongs to exactly one rule and
// points to a remedy with text, every remedy id has its row, and every threshold a rule declares is in the
// shipped data/thresholds.toml.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "shipped_thresholds.hpp"

#include "analyze/remedies.hpp"
#include "analyze/rule_table.hpp"

using namespace kprof;
using namespace kprof::analyze;

namespace {
std::string str(std::string_view s) { return std::string(s); }
}  // namespace

TEST(RuleTable, EveryRuleHasItsParts) {
  std::set<std::string> names;
  for (const auto& rule : diagnosis_rules()) {
    EXPECT_FALSE(rule.name.empty());
    EXPECT_TRUE(names.insert(str(rule.name)).second) << "two rules named " << rule.name;
    EXPECT_NE(rule.detect, nullptr) << rule.name << " has no detect function";
    EXPECT_FALSE(rule.causes.empty()) << rule.name << " names no cause";
  }
}

TEST(RuleTable, EveryCauseBelongsToExactlyOneRule) {
  std::map<CauseId, std::string> owner;
  for (const auto& rule : diagnosis_rules())
    for (const auto& c : rule.causes) {
      auto [it, fresh] = owner.emplace(c.id, str(rule.name));
      EXPECT_TRUE(fresh) << name(c.id) << " is in both " << it->second << " and " << rule.name;
    }
  for (std::size_t i = 0; i < kCauseIdCount; ++i) {
    const auto id = static_cast<CauseId>(i);
    EXPECT_TRUE(owner.count(id)) << name(id) << " is in no rule";
  }
}

TEST(RuleTable, EveryCausePointsToARemedyWithText) {
  for (const auto& rule : diagnosis_rules())
    for (const auto& c : rule.causes) {
      // An undiagnosed stall has no remedy by design: it says which stall dominates instead of guessing.
      if (c.id == CauseId::undiagnosed_stall) {
        EXPECT_EQ(c.remedy, RemedyId::none);
        EXPECT_TRUE(c.leads_without_gain);
        continue;
      }
      EXPECT_NE(c.remedy, RemedyId::none) << name(c.id) << ": a row names the remedy below the roof";
      const Remedy* r = find_remedy(c.remedy);
      ASSERT_NE(r, nullptr) << name(c.id) << " points to " << name(c.remedy) << ", which has no row in remedies.cpp";
      EXPECT_TRUE(r->name && *r->name) << name(c.remedy);
      EXPECT_TRUE(r->rationale && *r->rationale) << name(c.remedy);
    }
}

TEST(RuleTable, EveryRemedyIdHasOneRow) {
  EXPECT_EQ(find_remedy(RemedyId::none), nullptr);
  for (std::size_t i = 0; i < kRemedyIdCount; ++i) {
    const auto id = static_cast<RemedyId>(i);
    if (id == RemedyId::none) continue;
    const Remedy* r = find_remedy(id);
    ASSERT_NE(r, nullptr) << name(id) << " has no row in remedies.cpp";
    EXPECT_EQ(r->id, id);
  }
}

// Only a specific cause explains, and only plain bounds; only a plain bound names a saturated unit.
TEST(RuleTable, ExplainsRelatesSpecificCausesToPlainBounds) {
  for (const auto& rule : diagnosis_rules())
    for (const auto& c : rule.causes) {
      if (!c.specific) {
        EXPECT_TRUE(c.explains.empty() && !c.explains_every_bound) << name(c.id) << " is a plain bound";
        continue;
      }
      EXPECT_FALSE(c.saturates_unit) << name(c.id) << " is specific";
      EXPECT_TRUE(!c.explains.empty() || c.explains_every_bound) << name(c.id) << " explains nothing";
      for (CauseId b : c.explains) EXPECT_FALSE(cause_spec(b).specific) << name(c.id) << " explains " << name(b);
    }
  EXPECT_TRUE(explains(CauseId::launch_overhead, CauseId::tensor_pipe));
  EXPECT_FALSE(explains(CauseId::launch_overhead, CauseId::grid_too_small));
  EXPECT_TRUE(throughput_bound(CauseId::dram_bandwidth));
  EXPECT_FALSE(throughput_bound(CauseId::l2_bandwidth));
}

TEST(RuleTable, EveryDeclaredThresholdIsShipped) {
  const auto t = shipped();
  for (const auto& rule : diagnosis_rules()) {
    EXPECT_FALSE(rule.thresholds.empty()) << rule.name << " declares no threshold";
    for (auto key : rule.thresholds)
      EXPECT_TRUE(t.params.count(str(key)) || t.texts.count(str(key)))
          << rule.name << " reads " << key << ", which data/thresholds.toml lacks";
  }
}

// The remedies the data file gives Nsight Compute's rules are kprof's ids (or "information": no remedy).
TEST(RuleTable, NcuCategoriesNameKnownRemedies) {
  for (const auto& [rule, category] : shipped().ncu_categories)
    EXPECT_TRUE(category == "information" || remedy_id(category)) << rule << " = " << category;
}

// A Cause carries its ids as their names, and they read back.
TEST(RuleTable, IdsRoundTripThroughTheirNames) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kCauseIdCount; ++i) {
    const auto id = static_cast<CauseId>(i);
    EXPECT_EQ(cause_id(name(id)), id);
    EXPECT_TRUE(names.insert(str(name(id))).second) << name(id);
  }
  for (std::size_t i = 0; i < kRemedyIdCount; ++i) {
    const auto id = static_cast<RemedyId>(i);
    EXPECT_EQ(remedy_id(name(id)), id);
  }
  EXPECT_EQ(name(CauseId::uncoalesced_global), "uncoalesced_global");
  EXPECT_EQ(cause_id("uncoalesced"), std::nullopt);
}
