#!/usr/bin/env python3
# Medians of ab.log (ab.sh): cached against streaming output stores, per case, size (MiB), placement.
import re,sys,statistics as st,collections
d=collections.defaultdict(list); cur=None
for l in open(sys.argv[1]):
    m=re.match(r'### (\w+) (\S+) run',l)
    if m: cur=(m.group(1),m.group(2)); continue
    f=l.split()
    if len(f)>10 and f[0].isdigit():
        d[(cur[1],int(f[0])>>20,'out')].append((cur[0],float(f[5]),float(f[-4])))
        d[(cur[1],int(f[0])>>20,'in')].append((cur[0],float(f[9]),float(f[-3])))
for k in sorted(d):
    c=[x[1] for x in d[k] if x[0]=='cached']; s=[x[1] for x in d[k] if x[0]=='streaming']
    if not c or not s: continue
    print("%-14s %3d %-3s cached %8.0f streaming %8.0f  s/c %.2f  n=%d,%d  roof%% c %s s %s"%(k[0],k[1],k[2],st.median(c),st.median(s),st.median(s)/st.median(c),len(c),len(s),[x[2] for x in d[k] if x[0]=='cached'],[x[2] for x in d[k] if x[0]=='streaming']))
