// Where `arlab bench` puts its buffers, by the names users type after --device: `host`
// (the CPU reducers) or `cuda` (the GPU of each rank's local rank, kernels on a stream).
// A device this build lacks is still listed, with the reason, like the transports.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "transports/device.h"

namespace arlab {

struct DeviceRequest {
  int local_rank = 0;
  int local_size = 1;
  bool allow_sharing = false;  // more ranks per node than GPUs
};

struct DeviceInfo {
  std::string_view name;
  std::string_view summary;
  std::unique_ptr<Device> (*make)(const DeviceRequest&);  // nullptr when not built
  std::string_view unavailable_reason;
};

const std::vector<DeviceInfo>& devices();
const DeviceInfo* find_device(std::string_view name);
std::string device_names();

// Throws TransportUnavailable (one line) when the device is not built or not present.
std::unique_ptr<Device> make_device(std::string_view name, const DeviceRequest& request);

std::unique_ptr<Device> make_host_device();

}  // namespace arlab
