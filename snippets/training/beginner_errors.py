# The first errors autograd shows most people, and what they mean.
# --8<-- [start:numpy]
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
doubled = w * 2
try:
    doubled.numpy()  # numpy cannot record: refused while doubled has history
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
print("detach().numpy():", doubled.detach().numpy())
print("item():", doubled[0].item(), "  tolist():", doubled.tolist())
# --8<-- [end:numpy]

# --8<-- [start:claim-plain-numbers]
# item() and tolist() need no detach: they return plain Python numbers
assert type(doubled[0].item()) is float
assert all(type(v) is float for v in doubled.tolist())
# numpy() refuses a tensor that requires grad; detach(): the same numbers
try:
    doubled.numpy()
    refused = False
except RuntimeError as error:
    refused = "Can't call numpy() on Tensor that requires grad" in str(error)
assert refused
assert doubled.detach().numpy().tolist() == doubled.tolist()
assert doubled.detach().grad_fn is None
# --8<-- [end:claim-plain-numbers]

# --8<-- [start:claim-numpy-shares]
# detach().numpy() shares the tensor's memory: a change to the array changes
# the tensor, the version counter does not move, and a tensor saved for
# backward (exp saves its result) gives a wrong gradient, without an error
shared_base = torch.tensor([1.0, 2.0], requires_grad=True)
shared_exp = shared_base.exp()  # its node saves this result for backward
shared_array = shared_exp.detach().numpy()
version_before = shared_exp._version
shared_array[0] = 100.0
assert shared_exp[0].item() == 100.0  # the tensor changed with the array
assert shared_exp._version == version_before  # autograd saw nothing
shared_exp.sum().backward()  # no error
right_grad = torch.tensor([1.0, 2.0]).exp()
assert shared_base.grad[0].item() == 100.0 != right_grad[0].item()
assert shared_base.grad[1].item() == right_grad[1].item()
# .copy() gives an array of its own: the tensor stays as it was
own_exp = torch.tensor([1.0, 2.0], requires_grad=True).exp()
own_array = own_exp.detach().numpy().copy()
own_array[0] = 100.0
assert own_exp[0].item() == right_grad[0].item()
# --8<-- [end:claim-numpy-shares]

# --8<-- [start:integers]
try:
    counts = torch.ones(2, dtype=torch.long, requires_grad=True)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
counts = torch.ones(2, dtype=torch.float32, requires_grad=True)  # floats can
print("float32 requires_grad:", counts.requires_grad)
# --8<-- [end:integers]

# --8<-- [start:claim-integers]
# every dtype torch.ones can make: accepted exactly when floating or complex
import warnings  # noqa: E402  (a claim section, left out of the page)

dtypes = {d for d in vars(torch).values() if isinstance(d, torch.dtype)}
tried = []
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # complex32 and the quantized are noisy
    for dtype in sorted(dtypes, key=str):
        try:
            torch.ones(2, dtype=dtype)
        except (NotImplementedError, RuntimeError):
            continue  # a dtype ones cannot make: not in the sentence's scope
        try:
            torch.ones(2, dtype=dtype, requires_grad=True)
            accepted = True
        except RuntimeError as error:
            accepted = "Only Tensors of floating point" not in str(error)
        assert accepted == (dtype.is_floating_point or dtype.is_complex)
        tried.append(dtype)
assert torch.bool in tried and torch.int64 in tried and torch.float32 in tried
# --8<-- [end:claim-integers]

# --8<-- [start:integer_data]
layer = torch.nn.Linear(2, 1)  # its weight and bias are float32
try:
    layer(torch.tensor([[1, 2]]))  # integer data: int64
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
print("float data:", layer(torch.tensor([[1.0, 2.0]])).shape)
print("converted: ", layer(torch.tensor([[1, 2]]).float()).shape)
# --8<-- [end:integer_data]

# --8<-- [start:claim-data-dtype]
# outside autocast, a Linear layer takes input of its weights' dtype only:
# every other dtype, integer or floating, raises a RuntimeError. Under
# torch.autocast (CPU, bfloat16 or float16), a float32 layer also takes
# float16 and bfloat16 input; integers are refused either way
floating_low = (torch.float16, torch.bfloat16)
autocasts = (None, torch.bfloat16, torch.float16)  # None: no autocast
for layer_dtype in (torch.float32, torch.float64):
    dtype_layer = torch.nn.Linear(3, 2, dtype=layer_dtype)
    for cast in autocasts:
        for data_dtype in (
            torch.int64,
            torch.int32,
            torch.int16,
            torch.int8,
            torch.uint8,
            torch.bool,
            torch.float16,
            torch.bfloat16,
            torch.float32,
            torch.float64,
        ):
            data = torch.ones(4, 3, dtype=data_dtype)
            try:
                if cast is None:
                    dtype_layer(data)
                else:
                    with torch.autocast("cpu", dtype=cast):
                        dtype_layer(data)
                raised = False
            except RuntimeError:
                raised = True
            taken = data_dtype == layer_dtype or (
                cast is not None
                and layer_dtype == torch.float32
                and data_dtype in floating_low
            )
            assert raised == (not taken), (layer_dtype, cast, data_dtype)
            if not data_dtype.is_floating_point:
                assert raised  # integers and bool: refused in every case
# --8<-- [end:claim-data-dtype]
