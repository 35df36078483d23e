"""IRModule passes and the build: pass infrastructure, legalization, fusion, BYOC, VM lowering."""
