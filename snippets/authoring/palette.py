# The colours figure code may use, by name, in both palettes.
from docpipe.run.figures import PALETTES

light, dark = PALETTES["light"], PALETTES["dark"]
names = [f"C{i}" for i in range(len(light["cycle"]))] + [
    "ink",
    "muted",
    "grid",
]
print(f"{'name':<7}{'light':<10}{'dark':<10}how to use it")
for i, name in enumerate(names[: len(light["cycle"])]):
    print(
        f'{name:<7}{light["cycle"][i]:<10}{dark["cycle"][i]:<10}color="{name}"'
    )
for name in names[len(light["cycle"]) :]:
    print(f'{name:<7}{light[name]:<10}{dark[name]:<10}color=ink("{name}")')
