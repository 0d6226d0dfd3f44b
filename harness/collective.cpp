#include "harness/collective.h"

#include "algorithms/cost.h"
#include "algorithms/registry.h"
#include "algorithms/lockstep.h"
#include "algorithms/one_sided.h"
#include "algorithms/reducers.h"
#include "harness/errors.h"
#include "harness/executor.h"
#include "harness/lockstep_executor.h"
#include "harness/watchdog.h"

namespace arlab {
namespace {

class ScheduledAllreduce final : public Collective {
 public:
  ScheduledAllreduce(const AllreduceSpec& spec, const AlgorithmInfo& algorithm, Transport& transport, Device& device)
      : spec_(spec), transport_(transport), device_(device) {
    Problem p;
    p.rank = transport.rank();
    p.nranks = transport.size();
    p.count = spec.count;
    p.element_size = info(spec.type).size;
    p.chunk_bytes = spec.chunk_bytes;
    p.ranks_per_node = spec.ranks_per_node;
    p.inter = spec.inter;
    p.intra = spec.intra;
    const TransportCapabilities caps = transport.capabilities();
    const bool lockstep = spec.lockstep || caps.stream_ordered;
    check_lockstep(spec.lockstep, transport);
    if (!lockstep && !caps.one_sided) {
      schedule_ = algorithm.generate(p);
      executor_ = std::make_unique<Executor>(schedule_, p.element_size);
    } else {
      // Both lowerings read the whole world: rounds that every rank agrees on, or the
      // destination of every send (senders write straight into receivers' buffers).
      std::vector<RankSchedule> world = generate_world(p, algorithm.generate);
      std::vector<std::vector<uint32_t>> rounds;
      if (lockstep) rounds = lockstep_rounds(world);
      else lower_to_one_sided(world, [&](int a, int b) { return transport.one_sided_between(a, b); });
      // With symmetric buffers the scratch is symmetric too, so every write into a peer is a
      // plain copy: allocated together, the largest rank's size on every rank.
      if (spec.symmetric && !lockstep && transport.has_symmetric_allreduce()) {
        uint64_t largest = 0;
        for (const RankSchedule& r : world) largest = std::max(largest, r.scratch_count);
        symmetric_scratch_ = SymmetricBuffer(transport, largest * p.element_size);
      }
      schedule_ = std::move(world[p.rank]);
      if (lockstep) lockstep_ = std::make_unique<LockstepExecutor>(schedule_, rounds[p.rank], p.element_size);
      else executor_ = std::make_unique<Executor>(schedule_, p.element_size);
    }
    if (!symmetric_scratch_.data()) scratch_ = DeviceBuffer(device, schedule_.scratch_count * p.element_size);
  }

  void run(const void* input, void* output) override {
    const LocalWork work{device_, spec_.type, spec_.op};
    const RankBuffers buffers{input, output, symmetric_scratch_.data() ? symmetric_scratch_.data() : scratch_.data()};
    if (lockstep_) lockstep_->run(transport_, work, buffers);
    else executor_->run(transport_, work, buffers);
    if (spec_.op == RedOp::Avg) device_.divide(spec_.type, output, spec_.count, transport_.size());
  }

  std::vector<TracedSpan> run_traced(const void* input, void* output) override {
    if (!executor_) return Collective::run_traced(input, output);
    std::vector<Executor::StepTimes> times;
    executor_->record_steps(&times);
    const double begin = steady_clock_us();
    run(input, output);
    executor_->record_steps(nullptr);
    // Each step named by its operations, as `arlab explain` prints them.
    std::vector<TracedSpan> spans;
    for (uint32_t x = 0; x < times.size(); ++x) {
      std::string name = "step " + std::to_string(x) + ":";
      for (const Op& op : schedule_.ops(x)) name += (name.back() == ':' ? " " : ", ") + to_string(op);
      spans.push_back({name, times[x].start_us - begin, times[x].end_us - begin});
    }
    return spans;
  }

 private:
  AllreduceSpec spec_;
  Transport& transport_;
  Device& device_;
  RankSchedule schedule_;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<LockstepExecutor> lockstep_;
  DeviceBuffer scratch_;
  SymmetricBuffer symmetric_scratch_;  // instead of scratch_, with symmetric buffers
};

NativeReduction native_reduction(DataType type, RedOp op) {
  using K = NativeReduction::Kind;
  using O = NativeReduction::Op;
  const DataTypeInfo& t = info(type);
  K kind = type == DataType::Bfloat16 ? K::BFloat
         : t.is_float                 ? K::Float
         : (type == DataType::Uint8 || type == DataType::Uint32 || type == DataType::Uint64) ? K::UnsignedInt
                                                                                           : K::SignedInt;
  const O ops[] = {O::Sum, O::Prod, O::Min, O::Max, O::Sum};  // avg: sum, then divide
  return {kind, ops[static_cast<size_t>(op)], t.size, reducer(type, op), many_reducer(type, op)};
}

// The library's own all-reduce; avg is a sum followed by the same division as the lab's.
class NativeAllreduce final : public Collective {
 public:
  NativeAllreduce(const AllreduceSpec& spec, Transport& transport, Device& device)
      : spec_(spec), transport_(transport), device_(device) {
    if (device.is_gpu() && !transport.capabilities().gpu_memory)
      throw UsageError("-a " + spec.algorithm + ": the " + transport.name() + " library here cannot read GPU memory (" +
                       (transport.name() == "mpi" ? "this MPI is not CUDA-aware" : "no GPU support") +
                       "); leave it out of -a with --device cuda, or use --device host");
  }
  void run(const void* input, void* output) override {
    transport_.native_allreduce(input, output, spec_.count, native_reduction(spec_.type, spec_.op));
    if (spec_.op == RedOp::Avg) device_.divide(spec_.type, output, spec_.count, transport_.size());
  }

 private:
  AllreduceSpec spec_;
  Transport& transport_;
  Device& device_;
};

// oneshot and twoshot: the transport's paths through shared slots, one step for small messages
// (Transport::small_allreduce_*) and two for larger ones (two_step_allreduce_*, any size: a
// message over the slot goes through it in pieces), or two on symmetric buffers, any size
// (symmetric_allreduce_*): no schedule, no executor; it spins, then yields, while the peers
// catch up.
class SlotAllreduce final : public Collective {
 public:
  enum class Path { OneStep, TwoStep, Symmetric };
  // twoshot's piece through the slots. At N = 2 on the build VM, 64 MiB took the same time in
  // pieces of 1, 2 and 4 MiB (10.2-13.8 ms, four runs each); 1 MiB varied least (10.8-11.3).
  static constexpr size_t kTwoStepPieceBytes = 1 << 20;
  SlotAllreduce(const AllreduceSpec& spec, Transport& transport, Device& device, Path path)
      : spec_(spec), transport_(transport), device_(device), reduction_(native_reduction(spec.type, spec.op)),
        bytes_(spec.count * info(spec.type).size), path_(path) {
    const std::string flag = "-a " + chosen();
    if (device.is_gpu()) throw UsageError(flag + ": host memory only (the slots are shared host memory); use --device host");
    if (path == Path::Symmetric) {
      if (!transport.has_symmetric_allreduce())
        throw UsageError(flag + " --symmetric: -t " + transport.name() + " has no all-reduce on symmetric memory (use -t shm)");
      return;
    }
    const bool two_step = path == Path::TwoStep;
    const size_t limit = two_step ? transport.two_step_allreduce_limit() : transport.small_allreduce_limit();
    if (two_step && limit > 0) {
      // Any size, through the slot in pieces. (Not --chunk: that pipelines the schedules, in
      // pieces far too small for this path, and auto may pick either.)
      piece_count_ = std::max<size_t>(1, std::min(kTwoStepPieceBytes, limit) / info(spec.type).size);
      return;
    }
    if (bytes_ > limit)
      throw UsageError(flag + ": " + std::to_string(bytes_) + " bytes is over -t " + transport.name() + "'s limit of " +
                       std::to_string(limit) + " bytes" +
                       (limit                        ? ""
                        : transport.name() == "shm" ? " (too little room in /dev/shm for its slots)"
                                                    : std::string(" (it has no ") + (two_step ? "two-step" : "one-step") +
                                                          " path; use -t shm)") +
                       (two_step && transport.has_symmetric_allreduce() ? "; with --symmetric it has none" : ""));
  }
  void run(const void* input, void* output) override {
    if (path_ == Path::TwoStep) {
      // Messages over the slot go through it piece by piece, one two-step call each.
      const size_t es = reduction_.element_size;
      for (size_t e = 0; e < spec_.count; e += piece_count_) {
        const size_t count = std::min(piece_count_, spec_.count - e);
        run_one(static_cast<const char*>(input) + e * es, static_cast<char*>(output) + e * es, count);
      }
    } else {
      run_one(input, output, spec_.count);
    }
    if (spec_.op == RedOp::Avg) device_.divide(spec_.type, output, spec_.count, transport_.size());
  }
  void run_one(const void* input, void* output, size_t count) {
    const size_t bytes = count * reduction_.element_size;
    if (path_ == Path::Symmetric) transport_.symmetric_allreduce_post(input, output, bytes);
    else if (path_ == Path::TwoStep) transport_.two_step_allreduce_post(input, count, reduction_, bytes_);
    else transport_.small_allreduce_post(input, bytes);
    const auto done = [&] {
      switch (path_) {
        case Path::Symmetric: return transport_.symmetric_allreduce_poll(input, output, count, reduction_);
        case Path::TwoStep: return transport_.two_step_allreduce_poll(input, output, count, reduction_);
        default: return transport_.small_allreduce_poll(output, count, reduction_);
      }
    };
    IdlePoll poll;
    while (!done())
      poll.idle([&] { return "the " + chosen() + " all-reduce of " + std::to_string(bytes_) + " bytes waits for a peer"; });
  }
  std::string chosen() const override { return path_ == Path::OneStep ? "oneshot" : "twoshot"; }

  // The path for "oneshot" / "twoshot": twoshot on symmetric buffers where the transport has it.
  static Path path_for(std::string_view name, const AllreduceSpec& spec, const Transport& transport) {
    if (name == "oneshot") return Path::OneStep;
    return spec.symmetric && transport.has_symmetric_allreduce() ? Path::Symmetric : Path::TwoStep;
  }

 private:
  AllreduceSpec spec_;
  Transport& transport_;
  Device& device_;
  NativeReduction reduction_;
  size_t bytes_;
  Path path_;
  size_t piece_count_ = 0;  // twoshot through slots: elements per two-step call
};

// auto: picks the algorithm per size, then runs it. Every rank computes the same choice from
// the same inputs: the times `arlab tune` measured on this transport and world shape (the
// schedules, and on -t shm the slot paths too), else the slot paths by their rule, else the
// alpha-beta-gamma model and the closed forms.
class AutoAllreduce final : public Collective {
 public:
  AutoAllreduce(AllreduceSpec spec, Transport& transport, Device& device) {
    const size_t bytes = spec.count * info(spec.type).size;
    const bool host = !device.is_gpu();
    const SlotPaths paths{transport.small_allreduce_limit(), transport.two_step_allreduce_limit(),
                          spec.symmetric && transport.has_symmetric_allreduce(), IdlePoll::cores_shared()};
    // Only the timed paths this run can take; none on symmetric buffers (tune times private
    // ones, and twoshot on symmetric buffers is another path).
    MachineParams& machine = spec.machine;
    if (!host || bytes > paths.one_step_limit) machine.measured.seconds.erase("oneshot");
    if (!host || paths.two_step_limit == 0) machine.measured.seconds.erase("twoshot");
    const bool by_times = !paths.symmetric && !fastest_measured(machine.measured, static_cast<double>(bytes)).empty();
    const std::string slots = host && !by_times ? choose_slot_path(transport.size(), bytes, paths) : std::string();
    const AutoChoice choice =
        slots.empty() ? choose_algorithm(transport.size(), static_cast<double>(bytes), spec.ranks_per_node, machine)
                      : AutoChoice{slots, "ring"};
    if (is_slot_path(choice.algorithm)) {
      chosen_ = choice.algorithm;
      inner_ = std::make_unique<SlotAllreduce>(spec, transport, device, SlotAllreduce::path_for(chosen_, spec, transport));
      return;
    }
    spec.algorithm = choice.algorithm;
    spec.inter = choice.inter;
    chosen_ = choice.algorithm == "hier" ? "hier/" + choice.inter : choice.algorithm;
    inner_ = std::make_unique<ScheduledAllreduce>(spec, *find_algorithm(spec.algorithm), transport, device);
  }
  void run(const void* input, void* output) override { inner_->run(input, output); }
  std::vector<TracedSpan> run_traced(const void* input, void* output) override { return inner_->run_traced(input, output); }
  std::string chosen() const override { return chosen_; }

 private:
  std::string chosen_;
  std::unique_ptr<Collective> inner_;
};

}  // namespace

std::vector<TracedSpan> Collective::run_traced(const void* input, void* output) {
  const double begin = steady_clock_us();
  run(input, output);
  const std::string what = chosen();
  return {{(what.empty() ? std::string("all-reduce") : what) + " (one call, no schedule steps)", 0, steady_clock_us() - begin}};
}

void check_lockstep(bool lockstep, const Transport& transport) {
  if (lockstep && transport.capabilities().one_sided)
    throw UsageError("--lockstep: -t " + transport.name() + " is one-sided (writes and signals, not send / receive rounds)");
}

AutoChoice choose_algorithm(int nranks, double bytes, int ranks_per_node, const MachineParams& m) {
  // Measured times of this transport and world shape, where the run has them, come first.
  if (const std::string fastest = fastest_measured(m.measured, bytes); !fastest.empty()) {
    const MeasuredName name = parse_measured_name(fastest);
    return {name.algorithm, name.inter};
  }
  AutoChoice best;
  double best_time = 0;
  const auto consider = [&](const AlgorithmInfo& a, const std::string& inter) {
    const double t = model_time(a.closed_form({nranks, bytes, ranks_per_node, inter}), m.alpha, m.beta, m.gamma);
    if (best.algorithm.empty() || t < best_time) best = {std::string(a.name), inter}, best_time = t;
  };
  const bool several_nodes = ranks_per_node > 0 && ranks_per_node < nranks && nranks % ranks_per_node == 0;
  for (const auto& a : algorithms()) {
    if (a.name != "hier") {
      consider(a, "ring");
    } else if (several_nodes) {
      for (const auto& between : algorithms())
        if (between.name != "hier") consider(a, std::string(between.name));
    }
  }
  return best;
}

// Measured on the build machine (README, Performance), -r 5 medians: at N = 2 the two paths
// take the same time up to 32 KiB and twoshot is ahead above it (44 us against 82 us at 512 KiB;
// the ring 76 us); at N = 4 on 2 cores oneshot is ahead up to 16 KiB (one wait instead of two
// when ranks share cores: 4.4 against 8.8 us at 1 KiB) and twoshot above (33 against 49 us at
// 64 KiB). So oneshot while a rank folds at most 32 KiB from its peers. Without two-step slots
// (a small /dev/shm), oneshot up to 512 KiB folded, where it beat every schedule.
// On symmetric buffers twoshot copies nothing into slots: at N = 2 it takes 0.18 us at 512 B
// against oneshot's 0.26 (0.17 against 0.15 at 128 B), so oneshot only up to 256 B folded;
// with ranks sharing cores the two waits still cost more up to 8 KiB at N = 4 (7.2 us each),
// so there the 32 KiB rule stands.
// With a core per rank (this version's slots, private buffers, N = 2, -n 200 -r 5, two runs)
// twoshot is ahead from 1 KiB up (4 KiB: 0.68-0.70 us against 0.88-0.91; 16 KiB: 3.1 against
// 3.6 us; 1 KiB even; 256 B: 0.27 against 0.19 us): oneshot up to 1 KiB folded.
// Over its 2 MiB slot twoshot goes through it in pieces, still ahead of every schedule: 64 MiB
// at N = 2 in 10.2-13.8 ms against the ring's 17.6-18.2 ms (private buffers); 8 and 32 MiB at N = 4
// on 2 cores in 2.9-3.2 and 13.5-15.0 ms against rabenseifner's 6.3-7.2 and 28.7-29.5 ms.
std::string choose_slot_path(int nranks, size_t bytes, const SlotPaths& paths) {
  const bool two_step = paths.symmetric || paths.two_step_limit > 0;
  const size_t fold_cap = !two_step             ? 512 << 10
                          : paths.cores_shared    ? 32 << 10
                          : paths.symmetric       ? 256
                                                  : 1 << 10;
  const size_t folded = bytes * static_cast<size_t>(std::max(1, nranks - 1));
  if (paths.one_step_limit > 0 && bytes <= paths.one_step_limit && folded <= fold_cap) return "oneshot";
  if (two_step) return "twoshot";
  return "";
}

bool is_slot_path(std::string_view name) { return name == "oneshot" || name == "twoshot"; }

const std::vector<BaselineInfo>& baselines() {
  static const std::vector<BaselineInfo> table = {
      {"mpi", "the MPI library's own MPI_Allreduce", "mpi"},
      {"nccl", "NCCL's own ncclAllReduce (NCCL_ALGO / NCCL_PROTO from the environment; needs --device cuda)", "nccl"},
  };
  return table;
}

bool is_known_algorithm(std::string_view name) {
  if (find_algorithm(name) || name == "auto" || is_slot_path(name)) return true;
  for (const auto& b : baselines())
    if (b.name == name) return true;
  return false;
}

std::string all_algorithm_names() {
  std::string names = algorithm_names() + ", auto, oneshot, twoshot";
  for (const auto& b : baselines()) names += ", " + std::string(b.name);
  return names;
}

std::unique_ptr<Collective> make_collective(const AllreduceSpec& spec, Transport& transport, Device& device,
                                            const TransportLookup& lookup) {
  if (const AlgorithmInfo* a = find_algorithm(spec.algorithm))
    return std::make_unique<ScheduledAllreduce>(spec, *a, transport, device);
  if (spec.algorithm == "auto") return std::make_unique<AutoAllreduce>(spec, transport, device);
  if (is_slot_path(spec.algorithm))
    return std::make_unique<SlotAllreduce>(spec, transport, device, SlotAllreduce::path_for(spec.algorithm, spec, transport));
  for (const auto& b : baselines())
    if (b.name == spec.algorithm) return std::make_unique<NativeAllreduce>(spec, lookup(b.transport), device);
  throw UsageError("-a: unknown algorithm '" + spec.algorithm + "' (accepted: " + all_algorithm_names() + ")");
}

}  // namespace arlab
