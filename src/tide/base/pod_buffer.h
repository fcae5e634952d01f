// PodBuffer<T>: a growable array of trivially copyable values (a std::vector for column data) whose
// large arrays grow without copying: from kMappedBytes on, the array lives in an anonymous mapping of its
// own and grows with mremap, which moves the page tables instead of the bytes. A std::vector that
// doubles copies every value written so far again at each step, into fresh memory; for the write
// buffers of a copy (columns of tens of thousands of values, filled and then freed, again and again)
// those copies were a large part of the main thread's time. A mapping freed is faulted in again when
// the next array grows into one: what is saved is the copy at each doubling, not the first touch.
//
// Each mapping holds at least kMappedBytes, so their number stays below the memory they hold divided by
// that (a write buffer's budget bounds it); a mapping refused leaves the array on the heap.
// Values past size() up to capacity() are unspecified; resize() and assign() zero the new ones.
// Invariant: size() <= capacity(); data() is null exactly when capacity() is 0; a mapped array holds
// whole pages (capacity() rounded up to them) and is released with munmap, any other with free.
// Thread-safety: a value, as std::vector: one writer at a time, any number of readers of a const one.
// Allocation failure throws std::bad_alloc, as std::vector does.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace tide {

template <typename T>
class PodBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "PodBuffer copies its values as bytes");
  static_assert((sizeof(T) & (sizeof(T) - 1)) == 0 && sizeof(T) <= 4096, "whole values fill a page");
  static_assert(alignof(T) <= alignof(std::max_align_t), "malloc's and mmap's alignment suffices");

 public:
  // Arrays of at least this many bytes live in a mapping of their own.
  static constexpr size_t kMappedBytes = size_t{256} << 10;

  PodBuffer() = default;
  PodBuffer(const PodBuffer& other) { Append(other.data_, other.size_); }
  PodBuffer(PodBuffer&& other) noexcept { swap(other); }
  PodBuffer& operator=(const PodBuffer& other) {
    if (this != &other) {
      size_ = 0;
      Append(other.data_, other.size_);
    }
    return *this;
  }
  PodBuffer& operator=(PodBuffer&& other) noexcept {
    PodBuffer(std::move(other)).swap(*this);
    return *this;
  }
  ~PodBuffer() { Release(); }

  void swap(PodBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    std::swap(mapped_, other.mapped_);
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(T value) {
    if (size_ == capacity_) Grow(size_ + 1);
    data_[size_++] = value;
  }
  // `values` may point into this buffer's own values.
  void Append(const T* values, size_t n) {
    if (n == 0) return;
    if (size_ + n > capacity_) {
      // Growing may move or free the storage `values` points into: take its offset first.
      const bool own = values >= data_ && values < data_ + size_;
      const size_t offset = own ? static_cast<size_t>(values - data_) : 0;
      Grow(size_ + n);
      if (own) values = data_ + offset;
    }
    std::memcpy(data_ + size_, values, n * sizeof(T));
    size_ += n;
  }
  // Keeps the first n values, or adds zeros up to n.
  void resize(size_t n) {
    if (n > capacity_) Grow(n);
    if (n > size_) std::memset(static_cast<void*>(data_ + size_), 0, (n - size_) * sizeof(T));
    size_ = n;
  }
  // n copies of value.
  void assign(size_t n, T value) {
    size_ = 0;
    if (n > capacity_) Grow(n);
    std::fill(data_, data_ + n, value);
    size_ = n;
  }
  void clear() { size_ = 0; }
  void reserve(size_t n) {
    if (n > capacity_) Grow(n);
  }

 private:
  // Room for at least `need` values: double (at least), in place when the mapping can grow. A mapping
  // refused (the process's count of mappings, say) leaves the array on the heap.
  void Grow(size_t need) {
    if (need > SIZE_MAX / sizeof(T) / 2) throw std::bad_alloc();  // doubling would overflow the byte count
    const size_t capacity = std::max({need, capacity_ * 2, size_t{16}});
    size_t bytes = capacity * sizeof(T);
    if (bytes >= kMappedBytes) {
      const size_t page = PageBytes();
      const size_t mapped_bytes = (bytes + page - 1) / page * page;
      void* grown = MAP_FAILED;
      if (mapped_) {
        grown = ::mremap(data_, capacity_ * sizeof(T), mapped_bytes, MREMAP_MAYMOVE);
      } else {
        grown = ::mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (grown != MAP_FAILED) {
          if (size_ > 0) std::memcpy(grown, data_, size_ * sizeof(T));
          std::free(data_);
        }
      }
      if (grown != MAP_FAILED) {
        data_ = static_cast<T*>(grown);
        capacity_ = mapped_bytes / sizeof(T);
        mapped_ = true;
        return;
      }
    }
    if (mapped_) {
      void* moved = std::malloc(bytes);
      if (moved == nullptr) throw std::bad_alloc();
      std::memcpy(moved, data_, size_ * sizeof(T));
      ::munmap(data_, capacity_ * sizeof(T));
      data_ = static_cast<T*>(moved);
      mapped_ = false;
    } else {
      void* grown = std::realloc(data_, bytes);
      if (grown == nullptr) throw std::bad_alloc();
      data_ = static_cast<T*>(grown);
    }
    capacity_ = capacity;
  }

  void Release() {
    if (data_ == nullptr) return;
    if (mapped_) {
      ::munmap(data_, capacity_ * sizeof(T));
    } else {
      std::free(data_);
    }
    data_ = nullptr;
    size_ = capacity_ = 0;
    mapped_ = false;
  }

  static size_t PageBytes() {
    static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return page;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  bool mapped_ = false;
};

}  // namespace tide
