; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"

define void @op(i32 %0) {
  %2 = call { i32, i1 } @llvm.nvvm.elect.sync(i32 %0)
  %3 = extractvalue { i32, i1 } %2, 1
  ret void
}

; Function Attrs: convergent nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite)
declare { i32, i1 } @llvm.nvvm.elect.sync(i32) #0

attributes #0 = { convergent nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: readwrite) }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
