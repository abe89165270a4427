# JSON and dict churn, the scripting workload of traces/real (see traces/README.md):
# build documents, serialise them, parse them back, index and update them.
import json
import random

random.seed(1)
docs = []
for i in range(20000):
    d = {"id": i, "name": "item-%d" % i,
         "tags": ["t%d" % random.randrange(500) for _ in range(random.randrange(2, 12))],
         "pos": [random.random() for _ in range(3)],
         "props": {"k%d" % j: "v" * random.randrange(1, 200) for j in range(random.randrange(1, 8))}}
    docs.append(json.dumps(d))
index = {}
total = 0
for rnd in range(4):
    for s in docs:
        o = json.loads(s)
        o["tags"].sort()
        for t in o["tags"]:
            index.setdefault(t, []).append(o["id"])
        o["props"]["round"] = "r%d" % rnd
        total += len(json.dumps(o))
    for k in list(index)[::7]:
        del index[k]
print(total, len(index))
