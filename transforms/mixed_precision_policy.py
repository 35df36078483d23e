"""The mixed-precision policy of each operator, as apache-tvm 0.27 registers it
(`TMixedPrecisionPolicy`): "always" operators compute in float16 (accumulating in the requested
dtype); "follow" operators compute in the dtype their operands have. Operators in neither set
keep their operands' original dtypes."""

ALWAYS = frozenset(f"relax.{n}" for n in (
    "matmul", "outer", "nn.attention", "nn.attention_bias", "nn.attention_var_len",
    "nn.conv1d", "nn.conv1d_transpose", "nn.conv2d", "nn.conv2d_transpose", "nn.conv3d",
    "nn.conv3d_transpose"))

FOLLOW = frozenset(f"relax.{n}" for n in (
    "abs", "acos", "acosh", "add", "arange", "asin", "asinh", "astype", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "broadcast_to", "ceil", "concat",
    "cos", "cosh", "divide", "dynamic_strided_slice", "equal", "erf", "ewise_fma", "exp",
    "expand_dims", "eye", "flatten", "floor", "floor_divide", "floor_mod", "full", "full_like",
    "greater", "greater_equal", "hamming_window", "image.affine_grid", "image.grid_sample",
    "image.resize2d", "image.resize3d", "isfinite", "isinf", "isnan", "layout_transform",
    "left_shift", "less", "less_equal", "log", "log_add_exp", "logical_and", "logical_not",
    "logical_or", "logical_xor", "maximum", "meshgrid", "minimum", "mod", "multiply", "negative",
    "nn.adaptive_avg_pool1d", "nn.adaptive_avg_pool2d", "nn.adaptive_avg_pool3d",
    "nn.avg_pool1d", "nn.avg_pool2d", "nn.avg_pool3d", "nn.batch_flatten", "nn.dropout",
    "nn.gelu", "nn.gelu_tanh", "nn.group_norm", "nn.instance_norm", "nn.layer_norm",
    "nn.max_pool1d", "nn.max_pool2d", "nn.max_pool3d", "nn.relu", "nn.rms_norm", "nn.selu",
    "nn.silu", "not_equal", "ones", "permute_dims", "power", "reshape", "right_shift", "round",
    "rsqrt", "sigmoid", "sign", "sin", "sinh", "split", "sqrt", "square", "squeeze", "stack",
    "strided_slice", "subtract", "tan", "tanh", "trunc", "vision.roi_align", "vision.roi_pool",
    "zeros"))
