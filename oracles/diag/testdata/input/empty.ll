target triple = "nvptx64-nvidia-cuda"
define void @k_1() {
  ret void
}
