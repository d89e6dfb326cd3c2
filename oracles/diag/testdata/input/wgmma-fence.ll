target triple = "nvptx64-nvidia-cuda"
declare void @llvm.nvvm.wgmma.fence.sync.aligned()
define void @k_5() {
  call void @llvm.nvvm.wgmma.fence.sync.aligned()
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k_5, !"kernel", i32 1}
