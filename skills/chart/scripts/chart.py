"""Draws a chart from a CSV: chart.py DATA.csv OUT.png --x COL --y COL[,COL...] [--kind bar|line|scatter] [--title TEXT]"""
import argparse

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument('data')
parser.add_argument('out')
parser.add_argument('--x', required=True)
parser.add_argument('--y', required=True)
parser.add_argument('--kind', choices=['bar', 'line', 'scatter'], default='bar')
parser.add_argument('--title', default='')
args = parser.parse_args()

table = pd.read_csv(args.data)
ys = [name.strip() for name in args.y.split(',')]
missing = [name for name in [args.x, *ys] if name not in table.columns]
if missing:
    parser.exit(1, 'no column named %s; the columns are %s\n' % (', '.join(missing), ', '.join(table.columns)))
if args.kind != 'scatter':
    table = table.groupby(args.x, sort=False, as_index=False)[ys].sum()
figure, axes = plt.subplots(figsize=(9, 5), dpi=120)
if args.kind == 'scatter':
    for name in ys:
        axes.scatter(table[args.x], table[name], label=name)
else:
    table.plot(x=args.x, y=ys, kind=args.kind, ax=axes, legend=len(ys) > 1)
axes.set_xlabel(args.x)
axes.set_ylabel(ys[0] if len(ys) == 1 else 'value')
if args.title:
    axes.set_title(args.title)
axes.grid(axis='y', alpha=0.3)
figure.tight_layout()
figure.savefig(args.out)
print('%s: %s chart of %s by %s, %d points' % (args.out, args.kind, ', '.join(ys), args.x, len(table)))
