target triple = "nvptx64-nvidia-cuda"
declare void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 immarg)
define void @k_8(i64 %n) {
  call void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 %n)
  ret void
}
