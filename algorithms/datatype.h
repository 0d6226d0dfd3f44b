// Datatypes and reduction operations, by the names nccl-tests users type after -d and -o.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace arlab {

enum class DataType : uint8_t { Int8, Uint8, Int32, Uint32, Int64, Uint64, Float16, Bfloat16, Float32, Float64 };
enum class RedOp : uint8_t { Sum, Prod, Min, Max, Avg };

struct DataTypeInfo {
  DataType type;
  std::string_view name;   // canonical: int8 ... float16, bfloat16, float32, float64
  std::string_view alias;  // nccl-tests' spelling where it differs: half, float, double
  uint32_t size;
  bool is_float;
};

struct RedOpInfo {
  RedOp op;
  std::string_view name;
};

const std::vector<DataTypeInfo>& datatypes();
const std::vector<RedOpInfo>& redops();
const DataTypeInfo& info(DataType type);
std::string_view name(RedOp op);

// nullptr when unknown; accepts canonical names and aliases.
const DataTypeInfo* find_datatype(std::string_view name);
const RedOpInfo* find_redop(std::string_view name);
std::string datatype_names();
std::string redop_names();

}  // namespace arlab
