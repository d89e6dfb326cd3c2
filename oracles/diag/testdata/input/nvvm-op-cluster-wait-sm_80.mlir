gpu.module @m [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
llvm.func @op() {
  "nvvm.cluster.wait"() : () -> ()
  llvm.return
}
}
