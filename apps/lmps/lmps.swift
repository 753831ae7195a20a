// Power-grid LMP simulation: one DC optimal power flow per hour on the Illinois
// 200-bus grid (pandapower case_illinois200, solved with HiGHS), collecting
// generation, line flows and locational marginal prices (LMPs).
//
// The model is prepared once into the store; each task then solves a chunk of
// consecutive hours from it. Infeasible hours are reported, not fatal.
//
//   swiftcloud run apps/lmps/lmps.swift                         # paper size: 8760 hours
//   swiftcloud run apps/lmps/lmps.swift --hours=48 --chunk=12   # small
//
// Flags (all optional): --hours=8760 --start=0 --chunk=24 --out=out/lmps
//   --costs=quadratic|linear --segments=10 --derate=default|none|line:148=0.6,...
//   --time-limit=10.0 (seconds per hour) --low=0.45 --high=1.12 --seed=2011
//   --python=PATH (the interpreter with numpy/highspy; default: the engine's own)
//   --skeleton=DURATIONS.json (skeleton mode: prepare_model and every solve task do their
//     real file I/O through the store but sleep their measured duration instead of
//     computing; see apps/lmps/README.md "Skeleton mode")
import assert;
import python;
import string;
import sys;

app (file model) prepare_model (string py, string costs, int segments, string derate) {
  py "-m" "apps.lmps.prepare_model" "--out" model "--costs" costs "--segments" segments "--derate" derate
}

app (file profile) make_profile (string py, int hours, float low, float high, int seed) {
  py "-m" "apps.lmps.make_profile" "--out" profile "--hours" hours "--low" low "--high" high "--seed" seed
}

app (file result) solve_chunk (string py, file model, file profile, int first, int count, float limit) {
  py "-m" "apps.lmps.solve_chunk" "--model" model "--profile" profile "--first" first "--count" count
     "--time-limit" limit "--out" result
}

app (file lmp, file generation, file flows, file summary)
    merge_chunks (string py, file model, file chunks[]) {
  py "-m" "apps.lmps.merge_chunks" "--model" model "--lmp" lmp "--generation" generation "--flows" flows
     "--summary" summary chunks
}

// Skeleton mode: the same inputs and output names, compute replaced by a recorded sleep
// (skeleton_chunk.py, standard library only, started without site packages).
app (file model) skeleton_prepare (string py, string leaf, string durations) {
  py "-S" "-E" leaf "prepare" "--durations" durations "--out" model
}

app (file result) skeleton_solve (string py, string leaf, string durations, file model, file profile,
                                  int first, int count) {
  py "-S" "-E" leaf "solve" "--durations" durations "--first" first "--count" count "--out" result
     model profile
}

app (file summary) skeleton_merge (string py, string leaf, file model, file chunks[]) {
  py "-S" "-E" leaf "merge" "--model" model "--summary" summary chunks
}

main {
  argv_accept("hours", "start", "chunk", "out", "costs", "segments", "derate", "time-limit",
              "low", "high", "seed", "python", "skeleton");
  int hours = toint(argv("hours", "8760"));
  int start = toint(argv("start", "0"));
  int chunk = toint(argv("chunk", "24"));
  string out = argv("out", "out/lmps");
  assert(hours >= 1, "--hours must be at least 1");
  assert(start >= 0, "--start must not be negative");
  assert(chunk >= 1, "--chunk must be at least 1");

  // Leaf programs need numpy and highspy: by default they run under the interpreter
  // the workers run under (the engine's virtualenv), found by asking a worker.
  string py;
  if (argv_contains("python")) {
    py = argv("python");
  } else {
    py = python("import sys", "sys.executable");
  }

  string durations = argv("skeleton", "");
  string leaf;
  if (durations == "") {
    leaf = "";
  } else {
    leaf = python("import apps.lmps.skeleton_chunk as leaf", "leaf.__file__");
  }

  int segments = toint(argv("segments", "10"));
  file model <out + "/model.json">;
  if (durations == "") {
    model = prepare_model(py, argv("costs", "quadratic"), segments, argv("derate", "default"));
  } else {
    model = skeleton_prepare(py, leaf, durations);
  }
  float low = tofloat(argv("low", "0.45"));
  float high = tofloat(argv("high", "1.12"));
  file profile <out + "/profile.csv"> = make_profile(py, start + hours, low, high, toint(argv("seed", "2011")));

  int n_chunks = (hours + chunk - 1) %/ chunk;
  float limit = tofloat(argv("time-limit", "10.0"));
  file results[];
  foreach c in [0:n_chunks - 1] {
    int first = start + c * chunk;
    int count = min(chunk, start + hours - first);
    file result <sprintf("%s/chunks/hours_%05i.json", out, first)>;
    if (durations == "") {
      result = solve_chunk(py, model, profile, first, count, limit);
    } else {
      result = skeleton_solve(py, leaf, durations, model, profile, first, count);
    }
    results[c] = result;
  }

  file summary <out + "/summary.json">;
  if (durations == "") {
    file lmp <out + "/lmp.csv">;
    file generation <out + "/generation.csv">;
    file flows <out + "/flows.csv">;
    (lmp, generation, flows, summary) = merge_chunks(py, model, results);
  } else {
    // skeleton chunks hold no results: the merge reads and checks them, writes summary.json
    summary = skeleton_merge(py, leaf, model, results);
  }
}
