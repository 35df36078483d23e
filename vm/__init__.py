"""The runtime: NDArray and devices, the function registry, executables and the virtual machine."""
