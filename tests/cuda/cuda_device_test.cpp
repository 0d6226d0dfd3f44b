// The CUDA device against the CPU: every reducer (datatype x operation) on random bit
// patterns, through both the 16-byte vector path and the element path, must give the CPU
// reducer's bits; so must the avg division. The result check kernel must count exactly the
// planted errors. Every test is skipped, with the reason, where there is no GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "algorithms/half.h"
#include "algorithms/reducers.h"
#include "transports/device.h"
#include "transports/transport.h"

namespace arlab {
namespace {

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      device_ = make_cuda_device(0, 1, false);
    } catch (const TransportUnavailable& e) {
      GTEST_SKIP() << "needs a CUDA GPU: " << e.what();
    }
  }

  // The device's result of fn(buffers...) for host inputs, copied back.
  std::vector<unsigned char> round_trip(const std::vector<unsigned char>& host) {
    DeviceBuffer d(*device_, host.size());
    device_->upload(d.data(), host.data(), host.size());
    std::vector<unsigned char> back(host.size());
    device_->download(back.data(), d.data(), host.size());
    return back;
  }

  std::unique_ptr<Device> device_;
};

std::vector<unsigned char> random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<unsigned char> out(n);
  for (auto& b : out) b = static_cast<unsigned char>(rng());
  return out;
}

// Bit-identical, or both NaN (NaN payloads from float arithmetic differ between CPU and GPU).
bool same_element(DataType type, const unsigned char* x, const unsigned char* y) {
  const size_t size = info(type).size;
  if (std::memcmp(x, y, size) == 0) return true;
  uint64_t a = 0, b = 0;
  std::memcpy(&a, x, size);
  std::memcpy(&b, y, size);
  switch (type) {
    case DataType::Float16: return std::isnan(half_to_float(uint16_t(a))) && std::isnan(half_to_float(uint16_t(b)));
    case DataType::Bfloat16: return std::isnan(bfloat16_to_float(uint16_t(a))) && std::isnan(bfloat16_to_float(uint16_t(b)));
    case DataType::Float32: {
      float fa, fb;
      std::memcpy(&fa, x, 4), std::memcpy(&fb, y, 4);
      return std::isnan(fa) && std::isnan(fb);
    }
    case DataType::Float64: {
      double da, db;
      std::memcpy(&da, x, 8), std::memcpy(&db, y, 8);
      return std::isnan(da) && std::isnan(db);
    }
    default: return false;
  }
}

size_t first_difference(DataType type, const std::vector<unsigned char>& got, const std::vector<unsigned char>& want) {
  const size_t size = info(type).size;
  for (size_t i = 0; i < got.size() / size; ++i)
    if (!same_element(type, &got[i * size], &want[i * size])) return i;
  return SIZE_MAX;
}

TEST_F(CudaDeviceTest, UploadAndDownloadRoundTrip) {
  const auto host = random_bytes(12345, 1);
  EXPECT_EQ(round_trip(host), host);
}

TEST_F(CudaDeviceTest, EveryReducerMatchesTheCpuReducer) {
  for (const auto& t : datatypes())
    for (const auto& op : redops())
      for (size_t count : {size_t{1}, size_t{7}, size_t{4099}, size_t{1000003}})
        // Offset 0: all three buffers 16-byte aligned (vector path); 1 element: not aligned.
        for (size_t offset : {size_t{0}, size_t{1}}) {
          const size_t bytes = (count + offset) * t.size;
          const auto a = random_bytes(bytes, count * 131 + static_cast<uint64_t>(t.type));
          const auto b = random_bytes(bytes, count * 137 + static_cast<uint64_t>(op.op));
          std::vector<unsigned char> want = a;
          reducer(t.type, op.op)(want.data() + offset * t.size, a.data() + offset * t.size, b.data() + offset * t.size, count);

          DeviceBuffer da(*device_, bytes), db(*device_, bytes), dd(*device_, bytes);
          device_->upload(da.data(), a.data(), bytes);
          device_->upload(db.data(), b.data(), bytes);
          device_->upload(dd.data(), a.data(), bytes);
          device_->reduce(t.type, op.op, dd.data() + offset * t.size, da.data() + offset * t.size,
                          db.data() + offset * t.size, count);
          std::vector<unsigned char> got(bytes);
          device_->download(got.data(), dd.data(), bytes);
          const size_t bad = first_difference(t.type, got, want);
          ASSERT_EQ(bad, SIZE_MAX) << t.name << " " << op.name << " count " << count << " offset " << offset
                                   << ": first difference at element " << bad;
        }
}

TEST_F(CudaDeviceTest, InPlaceReduceAccumulates) {
  std::vector<float> a(1000, 1.5f), b(1000, 2.0f);
  DeviceBuffer da(*device_, 4000), db(*device_, 4000);
  device_->upload(da.data(), a.data(), 4000);
  device_->upload(db.data(), b.data(), 4000);
  for (int i = 0; i < 3; ++i) device_->reduce(DataType::Float32, RedOp::Sum, da.data(), da.data(), db.data(), 1000);
  device_->download(a.data(), da.data(), 4000);
  for (float v : a) ASSERT_EQ(v, 7.5f);
}

TEST_F(CudaDeviceTest, DivideMatchesTheCpu) {
  for (const auto& t : datatypes())
    for (int divisor : {3, 7}) {
      const size_t count = 100003, bytes = count * t.size;
      const auto host = random_bytes(bytes, divisor * 17 + static_cast<uint64_t>(t.type));
      std::vector<unsigned char> want = host;
      divide_by_ranks(t.type, want.data(), count, divisor);
      DeviceBuffer d(*device_, bytes);
      device_->upload(d.data(), host.data(), bytes);
      device_->divide(t.type, d.data(), count, divisor);
      std::vector<unsigned char> got(bytes);
      device_->download(got.data(), d.data(), bytes);
      ASSERT_EQ(first_difference(t.type, got, want), SIZE_MAX) << t.name << " / " << divisor;
    }
}

TEST_F(CudaDeviceTest, CountsExactlyThePlantedMismatches) {
  const size_t count = 1 << 20;
  std::vector<int32_t> expected(count), got(count);
  for (size_t i = 0; i < count; ++i) expected[i] = got[i] = static_cast<int32_t>(i * 2654435761u);
  for (size_t i : {size_t{0}, size_t{12345}, count - 1}) got[i] ^= 1;
  DeviceBuffer dg(*device_, count * 4), de(*device_, count * 4);
  device_->upload(dg.data(), got.data(), count * 4);
  device_->upload(de.data(), expected.data(), count * 4);
  EXPECT_EQ(device_->count_mismatches(DataType::Int32, dg.data(), de.data(), count, 0), 3u);
  EXPECT_EQ(device_->count_mismatches(DataType::Int32, de.data(), de.data(), count, 0), 0u);

  // Floats: inside the relative tolerance passes, outside fails.
  std::vector<float> fe(1000, 100.f), fg(1000, 100.f);
  fg[10] = 100.f * (1 + 1e-7f);  // within 2^-20
  fg[20] = 101.f;                // far outside
  DeviceBuffer fge(*device_, 4000), fgg(*device_, 4000);
  device_->upload(fge.data(), fe.data(), 4000);
  device_->upload(fgg.data(), fg.data(), 4000);
  EXPECT_EQ(device_->count_mismatches(DataType::Float32, fgg.data(), fge.data(), 1000, std::ldexp(1.0, -20)), 1u);
}

TEST_F(CudaDeviceTest, TimerMeasuresEnqueuedWork) {
  const size_t bytes = 64u << 20;
  DeviceBuffer a(*device_, bytes), b(*device_, bytes);
  device_->fill_bytes(a.data(), 1, bytes);
  device_->timer_start();
  for (int i = 0; i < 10; ++i) device_->copy(b.data(), a.data(), bytes);
  const double us = device_->timer_stop_us();
  EXPECT_GT(us, 0.0);
  std::vector<unsigned char> head(16);
  device_->download(head.data(), b.data(), 16);
  EXPECT_EQ(head, std::vector<unsigned char>(16, 1));
}

TEST_F(CudaDeviceTest, TooManyRanksPerGpuIsRefusedWithoutSharing) {
  EXPECT_THROW(make_cuda_device(0, 4096, false), TransportUnavailable);
  EXPECT_NO_THROW(make_cuda_device(4095, 4096, true));
}

}  // namespace
}  // namespace arlab
