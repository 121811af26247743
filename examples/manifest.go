package examples

import "embed"

// files holds the examples, file by file. The list is explicit so that a
// build never ships what running an example leaves behind (a .agentlab
// data directory, a compiled plan, an output directory): a file that is
// not listed here is not embedded, and TestExamplesHoldOnlyListedFiles
// fails while such a file lies in the source tree. A new example file is
// added here.
//
//go:embed approval-gate/README.md approval-gate/flow.yml
//go:embed data-qa/README.md data-qa/data-qa.eval.yml data-qa/data/stores.csv data-qa/flow.yml
//go:embed knowledge-qa/README.md knowledge-qa/flow.yml knowledge-qa/notes/accounts.txt knowledge-qa/notes/refunds.md knowledge-qa/notes/shipping.md knowledge-qa/notes/warranty.html
//go:embed loop-map/README.md loop-map/flow.yml
//go:embed metric-brief/README.md metric-brief/cards/monthly-revenue.card.yml metric-brief/data/orders.csv metric-brief/flow.yml
//go:embed minimal-qa/README.md minimal-qa/flow.yml
//go:embed parallel-review/README.md parallel-review/flow.yml
//go:embed ptc-tools/README.md ptc-tools/data/sales.csv ptc-tools/data/stock.csv ptc-tools/flow.yml
//go:embed structured-extract/README.md structured-extract/flow.yml
//go:embed traceable-weekly/README.md traceable-weekly/cards/weekly-gmv.card.yml traceable-weekly/data/sales.csv traceable-weekly/flow.yml traceable-weekly/traceable-weekly.eval.yml
var files embed.FS
