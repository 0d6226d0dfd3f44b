#include "algorithms/datatype.h"

#include "algorithms/named_table.h"

namespace arlab {

const std::vector<DataTypeInfo>& datatypes() {
  static const std::vector<DataTypeInfo> table = {
      {DataType::Int8, "int8", "", 1, false},        {DataType::Uint8, "uint8", "", 1, false},
      {DataType::Int32, "int32", "", 4, false},      {DataType::Uint32, "uint32", "", 4, false},
      {DataType::Int64, "int64", "", 8, false},      {DataType::Uint64, "uint64", "", 8, false},
      {DataType::Float16, "float16", "half", 2, true}, {DataType::Bfloat16, "bfloat16", "", 2, true},
      {DataType::Float32, "float32", "float", 4, true}, {DataType::Float64, "float64", "double", 8, true},
  };
  return table;
}

const std::vector<RedOpInfo>& redops() {
  static const std::vector<RedOpInfo> table = {
      {RedOp::Sum, "sum"}, {RedOp::Prod, "prod"}, {RedOp::Min, "min"}, {RedOp::Max, "max"}, {RedOp::Avg, "avg"}};
  return table;
}

const DataTypeInfo& info(DataType type) { return datatypes()[static_cast<size_t>(type)]; }
std::string_view name(RedOp op) { return redops()[static_cast<size_t>(op)].name; }

const DataTypeInfo* find_datatype(std::string_view name) {
  for (const auto& d : datatypes())
    if (d.name == name || (!d.alias.empty() && d.alias == name)) return &d;
  return nullptr;
}

const RedOpInfo* find_redop(std::string_view name) { return find_named(redops(), name); }
std::string datatype_names() { return join_names(datatypes()); }
std::string redop_names() { return join_names(redops()); }

}  // namespace arlab
