#include "harness/pmpi/interpose_types.h"

#include <dlfcn.h>

#include <atomic>
#include <utility>
#include <vector>

namespace arlab {
namespace {

struct NamedType {
  MPI_Datatype mpi;
  DataType type;
};

// Every predefined MPI datatype arlab's reducers serve. C types whose width varies by
// platform (long) map by their width here. Open MPI's handles are addresses, not
// constants, so the table is built at run time.
const std::vector<NamedType>& named_types() {
  static const std::vector<NamedType> table = [] {
    const auto signed_of = [](size_t bytes) { return bytes == 8 ? DataType::Int64 : DataType::Int32; };
    const auto unsigned_of = [](size_t bytes) { return bytes == 8 ? DataType::Uint64 : DataType::Uint32; };
    return std::vector<NamedType>{
        {MPI_INT8_T, DataType::Int8},           {MPI_SIGNED_CHAR, DataType::Int8},
        {MPI_UINT8_T, DataType::Uint8},         {MPI_UNSIGNED_CHAR, DataType::Uint8},
        {MPI_INT32_T, DataType::Int32},         {MPI_INT, signed_of(sizeof(int))},
        {MPI_UINT32_T, DataType::Uint32},       {MPI_UNSIGNED, unsigned_of(sizeof(unsigned))},
        {MPI_INT64_T, DataType::Int64},         {MPI_LONG, signed_of(sizeof(long))},
        {MPI_LONG_LONG, DataType::Int64},       {MPI_UINT64_T, DataType::Uint64},
        {MPI_UNSIGNED_LONG, unsigned_of(sizeof(unsigned long))},
        {MPI_UNSIGNED_LONG_LONG, DataType::Uint64},
        {MPI_FLOAT, DataType::Float32},         {MPI_DOUBLE, DataType::Float64},
    };
  }();
  return table;
}

struct NamedOp {
  MPI_Op mpi;
  std::optional<RedOp> op;  // nullopt: predefined, but arlab has no reducer for it
  const char* name;
};

const std::vector<NamedOp>& named_ops() {
  static const std::vector<NamedOp> table{
      {MPI_SUM, RedOp::Sum, "MPI_SUM"},      {MPI_PROD, RedOp::Prod, "MPI_PROD"},  {MPI_MIN, RedOp::Min, "MPI_MIN"},
      {MPI_MAX, RedOp::Max, "MPI_MAX"},      {MPI_LAND, {}, "MPI_LAND"},           {MPI_LOR, {}, "MPI_LOR"},
      {MPI_LXOR, {}, "MPI_LXOR"},            {MPI_BAND, {}, "MPI_BAND"},           {MPI_BOR, {}, "MPI_BOR"},
      {MPI_BXOR, {}, "MPI_BXOR"},            {MPI_MINLOC, {}, "MPI_MINLOC"},       {MPI_MAXLOC, {}, "MPI_MAXLOC"},
      {MPI_REPLACE, {}, "MPI_REPLACE"},      {MPI_NO_OP, {}, "MPI_NO_OP"},
  };
  return table;
}

// The datatype's name, or for an unnamed derived one the constructor that made it.
std::string type_name(MPI_Datatype datatype, int combiner) {
  char name[MPI_MAX_OBJECT_NAME] = {};
  int length = 0;
  PMPI_Type_get_name(datatype, name, &length);
  if (length > 0) return std::string(name, length);
  static const std::vector<std::pair<int, const char*>> constructors{
      {MPI_COMBINER_DUP, "MPI_Type_dup"},         {MPI_COMBINER_CONTIGUOUS, "MPI_Type_contiguous"},
      {MPI_COMBINER_VECTOR, "MPI_Type_vector"},   {MPI_COMBINER_HVECTOR, "MPI_Type_create_hvector"},
      {MPI_COMBINER_INDEXED, "MPI_Type_indexed"}, {MPI_COMBINER_HINDEXED, "MPI_Type_create_hindexed"},
      {MPI_COMBINER_STRUCT, "MPI_Type_create_struct"}, {MPI_COMBINER_SUBARRAY, "MPI_Type_create_subarray"},
      {MPI_COMBINER_RESIZED, "MPI_Type_create_resized"},
  };
  for (const auto& [value, constructor] : constructors)
    if (value == combiner) return std::string("made by ") + constructor;
  return "an unnamed datatype";
}

}  // namespace

std::string_view describe(PassReason reason) {
  static constexpr std::array<std::string_view, kPassReasons> text{
      "below ARLAB_MIN_BYTES",      "user-defined operation", "operation arlab does not reduce",
      "derived datatype",           "datatype arlab does not reduce", "inter-communicator",
      "GPU buffer",                 "transport cannot serve the communicator", "non-blocking MPI_Iallreduce",
  };
  return text[static_cast<size_t>(reason)];
}

Translated translate(MPI_Datatype datatype, MPI_Op op) {
  // The most specific reason first: a derived datatype, then a predefined operation arlab has
  // no reducer for (MPI_MINLOC on MPI_2INT), then the datatype, then a user's operation.
  int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
  PMPI_Type_get_envelope(datatype, &integers, &addresses, &datatypes, &combiner);
  if (combiner != MPI_COMBINER_NAMED) return {{}, {PassReason::DerivedDatatype, type_name(datatype, combiner)}};
  const NamedOp* named_op = nullptr;
  for (const NamedOp& n : named_ops())
    if (n.mpi == op) named_op = &n;
  if (named_op && !named_op->op) return {{}, {PassReason::UnsupportedOperation, named_op->name}};
  const NamedType* named_type = nullptr;
  for (const NamedType& n : named_types())
    if (n.mpi == datatype) named_type = &n;
  if (!named_type) return {{}, {PassReason::UnsupportedDatatype, type_name(datatype, combiner)}};
  if (!named_op) return {{}, {PassReason::UserOperation, "MPI_Op_create"}};
  return {Translation{named_type->type, *named_op->op}, {}};
}

bool is_gpu_pointer(const void* pointer) {
  // cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr): CU_MEMORYTYPE_DEVICE is 2.
  // Looked up until found: the application may load CUDA after its first all-reduce.
  using GetAttribute = int (*)(void* data, int attribute, unsigned long long pointer);
  static std::atomic<GetAttribute> found{nullptr};
  GetAttribute get_attribute = found.load(std::memory_order_acquire);
  if (!get_attribute) {
    void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!cuda) return false;
    get_attribute = reinterpret_cast<GetAttribute>(dlsym(cuda, "cuPointerGetAttribute"));
    found.store(get_attribute, std::memory_order_release);
  }
  if (!get_attribute || !pointer) return false;
  unsigned int memory_type = 0;
  constexpr int kMemoryType = 2, kDevice = 2;
  return get_attribute(&memory_type, kMemoryType, reinterpret_cast<unsigned long long>(pointer)) == 0 &&
         memory_type == kDevice;
}

}  // namespace arlab
