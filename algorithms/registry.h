// The algorithms the lab knows, by the names users type after `-a`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/cost.h"
#include "algorithms/rotation_template.h"
#include "algorithms/schedule.h"

namespace arlab {

using ScheduleGenerator = RankSchedule (*)(const Problem&);
// The closed-form cost counts (unpipelined, the bytes divisible by N and nodes of equal size).
using ClosedFormCost = CostCounts (*)(const CostQuery& q);
// For algorithms that run the same program on every rank, shifted by the rank: the one
// template that `generate` expands, which the rotation checker proves for all ranks at once.
using RotationTemplateGenerator = RotationTemplate (*)(const Problem&);

struct AlgorithmInfo {
  std::string_view name;
  std::string_view summary;
  ScheduleGenerator generate;
  ClosedFormCost closed_form;
  std::string_view formula;  // the closed form as a reader would write it
  RotationTemplateGenerator rotation = nullptr;  // nullptr: not rotation-symmetric
};

// Every schedule-generating algorithm; adding one is a generator file and one line in
// registry.cpp.
const std::vector<AlgorithmInfo>& algorithms();

// nullptr when `name` is not a known algorithm.
const AlgorithmInfo* find_algorithm(std::string_view name);

// "ring, rd, ..." for error messages.
std::string algorithm_names();

}  // namespace arlab
