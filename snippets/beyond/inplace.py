# Editing a tensor that backward needs: the version counter notices.
# --8<-- [start:version]
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()  # sigmoid's backward uses its own output, b
versions = [b._version]  # _version: internal, read only to watch it
b.mul_(2)  # in place: the same memory, new numbers
versions.append(b._version)
print("b._version after sigmoid() and after mul_(2):", versions)

try:
    b.sum().backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
# --8<-- [end:version]

# --8<-- [start:claim-saved-version]
b = a.sigmoid()
assert b._version == 0
b.mul_(2)
assert b._version == 1  # each in-place edit counts one version up
try:
    b.sum().backward()
except RuntimeError:
    pass
else:
    raise AssertionError("backward through a changed saved tensor succeeded")
# --8<-- [end:claim-saved-version]

# --8<-- [start:fixes]
b = a.sigmoid() * 2  # fix: a new tensor; the saved one stays untouched
b.sum().backward()
print("out of place: a.grad =", a.grad)

a.grad = None
c = a + 1  # addition saves nothing for its backward
c.mul_(2)  # so editing c in place is fine
c.sum().backward()
print("in place on an unsaved tensor: a.grad =", a.grad)
# --8<-- [end:fixes]
