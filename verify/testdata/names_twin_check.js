// Run by names_twin_test.go with node: checks that the bundle page's name
// check (page.js, ALPage.names, with report.js's SQL tokenizer) says what evidence.Names says — Table,
// Column and Backticked — for every case Go wrote.
const fs = require("fs");
const ALPage = new Function(fs.readFileSync(process.argv[2], "utf8") + "\n" + fs.readFileSync(process.argv[3], "utf8") + "\nreturn ALPage;")();
const cases = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const enc = new TextEncoder();
let n = 0, fails = 0;
for (const c of cases) {
  const names = ALPage.names(c.snaps || [], c.extra || []);
  for (const q of c.checks) {
    let got;
    if (q.kind === "table") got = names.table(q.text);
    else if (q.kind === "column") got = names.column(q.text);
    else {
      const b = enc.encode(q.text);
      got = names.backticked(b, 0, b.length).map(u => ({ Start: u.start, End: u.end, Text: u.text, Reason: u.reason }));
    }
    n++;
    if (JSON.stringify(got) !== JSON.stringify(q.want)) {
      if (fails++ < 5) console.log(`FAIL ${q.kind} ${JSON.stringify(q.text)} with ${JSON.stringify(c.snaps)}:\n  got  ${JSON.stringify(got)}\n  want ${JSON.stringify(q.want)}`);
    }
  }
}
console.log(`${cases.length} name sets, ${n} checks, ${fails} failures`);
process.exit(fails ? 1 : 0);
