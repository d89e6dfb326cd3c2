gpu.module @m [#nvvm.target<chip = "sm_103a", features = "+ptx88">] {
  llvm.func @k(%d: !llvm.ptr<6>, %a: i64, %b: i64, %idesc: i32, %en: i1) {
    nvvm.tcgen05.mma %d, %a, %b, %idesc, %en {kind = #nvvm.tcgen05_mma_kind<f16>, ctaGroup = #nvvm.cta_group<cta_1>} : (!llvm.ptr<6>, i64, i64, i32, i1)
    llvm.return
  }
}
