# cmake -DLIB=<libScalyCAPI.so> -DNM=<nm> -DREADELF=<readelf> -P CheckSharedMLIR.cmake
#
# libScalyCAPI links MLIR's C API archives whole, and nothing else of MLIR
# statically: it needs the shared libMLIR, takes MLIRContext and PassManager
# from it (undefined here), and exports MLIR's C API and Scaly's.
cmake_minimum_required(VERSION 3.20)
foreach(var LIB NM READELF)
  if(NOT ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()
execute_process(COMMAND ${READELF} -d ${LIB} OUTPUT_VARIABLE dynamic COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${NM} -DC --defined-only ${LIB} OUTPUT_VARIABLE defined COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${NM} -DC --undefined-only ${LIB} OUTPUT_VARIABLE undefined COMMAND_ERROR_IS_FATAL ANY)

set(failed FALSE)
function(expect what text regex)
  if(NOT text MATCHES "${regex}")
    message(SEND_ERROR "${LIB}: ${what}")
    set(failed TRUE PARENT_SCOPE)
  endif()
endfunction()
function(refuse what text regex)
  if(text MATCHES "${regex}")
    message(SEND_ERROR "${LIB}: ${what}: ${CMAKE_MATCH_0}")
    set(failed TRUE PARENT_SCOPE)
  endif()
endfunction()

expect("does not need the shared libMLIR" "${dynamic}" "NEEDED[^\n]*\\[libMLIR\\.so")
expect("does not take MLIRContext from libMLIR" "${undefined}" "U mlir::MLIRContext::MLIRContext\\(")
expect("does not take PassManager::run from libMLIR" "${undefined}" "U mlir::PassManager::run\\(")
refuse("holds a copy of MLIR" "${defined}"
  " [TW] (mlir::MLIRContext::MLIRContext|mlir::PassManager::run|mlir::DialectRegistry::insert|mlir::detail::FallbackTypeIDResolver::registerImplicitTypeID)\\([^\n]*")
foreach(symbol mlirContextCreate mlirPassManagerCreate mlirParsePassPipeline
               mlirRegisterTransformsPasses mlirGetDialectHandle__arith__
               mlirGetDialectHandle__scaly_expr__ mlirGetDialectHandle__scaly_prog__
               scalyRegisterPasses scalyRegisterAllDialects)
  expect("does not export ${symbol}" "${defined}" " T ${symbol}\n")
endforeach()
if(failed)
  message(FATAL_ERROR "libScalyCAPI is not linked as expected")
endif()
message(STATUS "${LIB}: MLIR from the shared libMLIR, C API exported")
