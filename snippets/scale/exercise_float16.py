# Exercise: which gradient values survive float16, unscaled and scaled?
# --8<-- [start:values]
import torch

values = [1e-3, 1e-6, 5e-8, 1e-8, 1e-11]
scale = 1024
# --8<-- [end:values]

# --8<-- [start:solution]
zero, one = torch.tensor([0.0, 1.0], dtype=torch.float16)
tiny = zero.nextafter(one).item()  # the smallest float16 above zero


def predict(value):
    """Kept if it rounds to tiny or more: at least half of tiny."""
    return value > tiny / 2


for value in values:
    plain = torch.tensor(value, dtype=torch.float16).item()
    scaled = torch.tensor(value * scale, dtype=torch.float16).item()
    print(
        f"{value:7.0e}: predicted {predict(value)!s:5} / "
        f"{predict(value * scale)!s:5}, float16 {plain:.3g} / {scaled:.3g}"
    )
# --8<-- [end:solution]

# --8<-- [start:claim-solution]
for check_value in values:
    check_plain = torch.tensor(check_value, dtype=torch.float16).item()
    check_scaled = torch.tensor(check_value * scale, dtype=torch.float16)
    assert predict(check_value) == (check_plain != 0.0)
    assert predict(check_value * scale) == (check_scaled.item() != 0.0)
# --8<-- [end:claim-solution]
