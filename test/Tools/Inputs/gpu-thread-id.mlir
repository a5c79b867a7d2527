gpu.module @kernels {
  func.func @tid() -> index {
    %0 = gpu.thread_id x
    return %0 : index
  }
}
