// Parallel BLAST: split a protein database into N fragments, build a BLAST database per
// fragment, search the queries against every fragment, merge the hits into one sorted table.
//
//   swiftcloud run apps/blast/blast.swift --fragments=8                 (generates its data)
//   swiftcloud run apps/blast/blast.swift --db=db.fasta --queries=q.fasta --fragments=300
//
// Every fragment search gets -dbsize = residues of the whole database and -max_target_seqs =
// its sequence count, so the merged hits equal one blastp against the unsplit database.
// Flags: --fragments N (default 8); --db FASTA and --queries FASTA (else generated from
// --proteins (2000), --query-count (20), --seed (1)); --evalue (10); --out DIR (out/blast);
// --bin DIR of the leaf programs (apps/blast/bin, relative to the working directory);
// --python interpreter for them (default: the one running the workers, which needs no
// PATH lookup and no version-manager shim).
// Runs unchanged under any --storage backend (staging or shared): every app writes only the
// files it declares; with --storage, --out names a place in the store, and --db/--queries
// files in the store (a file found only on local disk is loaded into the store first).
import files;
import io;
import python;
import string;
import sys;

app (file db, file queries, file truth) generate (string py, string bin, int proteins, int count,
                                                  int seed) {
  py (bin + "/make_data.py") "--proteins" proteins "--queries" count "--seed" seed
    "--db" @db "--query-out" @queries "--truth" @truth
}

// Staging stores (s3, scp) move a task's declared inputs and outputs and nothing else, so the
// fragments travel in one zip archive, and each fragment's BLAST database in one zip.
app (file archive, file manifest, file stats) split_fasta (string py, string bin, file db, int n) {
  py (bin + "/split_fasta.py") @db n @archive @manifest @stats
}

app (file database) makeblastdb (string py, string bin, file archive, string member) {
  py (bin + "/makeblastdb.py") @archive member @database
}

app (file hits) blastp (string py, string bin, file database, file query, int dbsize,
                        int max_targets, string evalue) {
  py (bin + "/blastp.py") @database @query dbsize max_targets evalue @hits
}

app (file merged, file top) merge_hits (string py, string bin, file parts[]) {
  py (bin + "/merge_hits.py") @merged @top parts
}

main {
  argv_accept("fragments", "db", "queries", "proteins", "query-count", "seed", "evalue", "out",
              "bin", "python");
  string out = argv("out", "out/blast");
  string tools = argv("bin", "apps/blast/bin");
  string interpreter = argv("python", python("import sys", "sys.executable"));
  int fragments = toint(argv("fragments", "8"));
  string evalue = argv("evalue", "10");

  // The inputs: given files, or a generated database with planted homologs.
  file database;
  file query_set;
  if (argv_contains("db")) {
    database = input(argv("db"));
    query_set = input(argv("queries"));
  } else {
    file generated_db <out + "/data/db.fasta">;
    file generated_queries <out + "/data/queries.fasta">;
    file truth <out + "/data/truth.tsv">;
    (generated_db, generated_queries, truth) = generate(interpreter, tools,
        toint(argv("proteins", "2000")), toint(argv("query-count", "20")), toint(argv("seed", "1")));
    database = generated_db;
    query_set = generated_queries;
  }

  file archive <out + "/fragments/fragments.zip">;
  file manifest <out + "/fragments/manifest.txt">;
  file stats <out + "/fragments/stats.txt">;
  (archive, manifest, stats) = split_fasta(interpreter, tools, database, fragments);
  string totals[] = split(trim(read(stats)), " ");
  int residues = toint(totals[0]);
  int sequences = toint(totals[1]);

  // The manifest names the archive's members: frag_0001.fasta, ...
  file fragment_hits[];
  foreach member, i in file_lines(manifest) {
    string name = rootname_string(member);
    file fragment_db <out + "/db/" + name + ".zip"> = makeblastdb(interpreter, tools, archive, member);
    file found <out + "/hits/" + name + ".tsv"> = blastp(interpreter, tools, fragment_db, query_set,
                                                         residues, sequences, evalue);
    fragment_hits[i] = found;
  }

  file all_hits <out + "/hits.tsv">;
  file top_hits <out + "/top_hits.tsv">;
  (all_hits, top_hits) = merge_hits(interpreter, tools, fragment_hits);
  printf("blast: %i fragments, %i sequences, %i residues; %i hits for %i queries in %s",
         size(fragment_hits), sequences, residues, size(file_lines(all_hits)),
         size(file_lines(top_hits)), filename(all_hits));
}
