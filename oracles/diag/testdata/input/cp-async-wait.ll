target triple = "nvptx64-nvidia-cuda"
declare void @llvm.nvvm.cp.async.wait.all()
define void @k_21() {
  call void @llvm.nvvm.cp.async.wait.all()
  ret void
}
