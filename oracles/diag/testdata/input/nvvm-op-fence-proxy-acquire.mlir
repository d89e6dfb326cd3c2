llvm.func @op(%a0: !llvm.ptr, %a1: i32) {
  "nvvm.fence.proxy.acquire"(%a0, %a1) <{scope = #nvvm.mem_scope<cta>}> : (!llvm.ptr, i32) -> ()
  llvm.return
}
