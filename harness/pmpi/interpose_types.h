// What an MPI_Allreduce call asks for in arlab's terms (datatype, operation), or why arlab
// cannot serve it and the call goes to the MPI library unchanged.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "algorithms/datatype.h"

namespace arlab {

enum class PassReason : uint8_t {
  BelowMinBytes,
  UserOperation,
  UnsupportedOperation,
  DerivedDatatype,
  UnsupportedDatatype,
  InterCommunicator,
  GpuBuffer,
  TransportUnavailable,
  NonBlocking,
  kCount
};
inline constexpr size_t kPassReasons = static_cast<size_t>(PassReason::kCount);
std::string_view describe(PassReason reason);  // "user-defined operation"

struct Translation {
  DataType type;
  RedOp op;
};

struct Refusal {
  PassReason reason;
  std::string detail;  // "MPI_MINLOC", "MPI_SHORT", the combiner
};

// The arlab datatype and operation for an MPI pair, or the reason it stays with MPI.
struct Translated {
  std::optional<Translation> translation;
  Refusal refusal;
};
Translated translate(MPI_Datatype datatype, MPI_Op op);

// True when the pointer is GPU memory, asked of the CUDA driver only if the process has
// already loaded it (a host-only application never loads CUDA because of arlab).
bool is_gpu_pointer(const void* pointer);

}  // namespace arlab
