"""Public housing in the Northern Metropolis: English Q1./A1. pairs; TXT."""
from bench.unseen.model import Paper, q, qa, sec

PAPER = Paper(
    stem="U09_Public_Housing_Northern_Metropolis", fmt="txt", lang="en", qa_style="en_marked", letter="P",
    date="2025-05-05", stamp="LC Paper No. CB(1)720/2025(04)",
    title_zh="北部都會區公營房屋供應", title_en="Public Housing Supply in the Northern Metropolis",
    subtitle="Legislative Council Panel on Housing, meeting on 5 May 2025: Standby Questions and Answers",
    intro_heading="Speaking Notes",
    intro=(
        "Chairman, of the 308 000 public housing flats forecast for completion in the ten years from 2025-26 to 2034-35, "
        "about 126 000, or 41%, are in the Northern Metropolis (NM). The largest contributors are Kwu Tung North and "
        "Fanling North, Hung Shui Kiu/Ha Tsuen, Yuen Long South and the San Tin Technopole.",
        "We will also complete about 30 000 Light Public Housing units by 2027-28, of which about 11 000 are in Yuen Long, "
        "Tuen Mun and Sheung Shui. Thank you, Chairman.",
    ),
    qa_heading="Questions and Answers",
    sections=(
        sec("(A) Supply",
            qa("Q1", "How many public housing flats will the Northern Metropolis deliver in the next ten years?",
               "About 126 000 public housing flats, 41% of the ten-year public housing supply, will be completed in the NM "
               "between 2025-26 and 2034-35.",
               "About 60% of them will be public rental housing and 40% subsidised sale flats. Completions peak in 2031-32, "
               "when about 21 000 NM flats are expected."),
            qa("Q2", "When will the first public rental flats in Kwu Tung North be completed?",
               "The first public rental housing estate in Kwu Tung North, at Area 19 next to the future Kwu Tung Station, "
               "will provide about 4 600 flats and is scheduled for completion in the third quarter of 2027.",
               "A second estate of about 6 200 flats in Area 24 follows in 2029. Together they will house about 29 000 people."),
            qa("Q3", "What is the intake timetable for public housing in Fanling North?",
               "Fanling North's first public housing project, about 3 900 flats at Areas 15 East and 15 West, is targeted for "
               "intake in the second half of 2026.",
               "The remaining two projects, about 7 400 flats along the Ng Tung River, will be completed between 2029 and "
               "2030. The Fanling Bypass Eastern Section opens in 2026 to serve the first residents."),
            qa("Q4", "Where is Light Public Housing being built in the Northern Metropolis, and what is the rent?",
               "Light Public Housing projects in the NM include Yau Tin in Yuen Long (about 1 800 units), Sheung Shui Area 4 "
               "(about 2 300 units) and Tuen Mun Area 54 (about 2 100 units), all to be completed in 2026-27.",
               "Rent is set at about 90% of the public rental housing rent for a flat of the same size in the same district: "
               "for example, about HK$1 800 a month for a two-person unit in Yuen Long. Tenancies run for two years and may "
               "be renewed until the household is offered a public rental flat."),
        ),
        sec("(B) Waiting time and cost",
            qa("Q5", "Will the NM supply shorten the average waiting time for public rental housing?",
               "Yes. The average waiting time for general applicants was 5.5 years at the end of 2024, and we expect it to "
               "fall to about 4.5 years by 2026-27 as the NM estates come on stream.",
               "Our target remains an average waiting time of about 3 years by 2031-32, when the Northern Metropolis "
               "completions peak."),
            qa("Q6", "What does one public housing flat cost to build in the NM, and does Modular Integrated Construction save money?",
               "The average construction cost of a public rental flat in the NM projects tendered in 2024 was about "
               "HK$1.15 million, excluding land and site formation.",
               "Projects built with Modular Integrated Construction (MiC), such as the Kwu Tung North Area 24 estate, cost about "
               "6% more to build, but the construction period is about 9 months shorter and site labour falls by about 35%."),
            qa("Q7", "How many flats will be built on the Fanling Golf Course site?",
               "About 12 000 flats will be built on the 9.5-hectare eastern part of the Fanling Golf Course, of which about "
               "70% will be public housing.",
               "The site is expected to be handed over for works in 2027, with the first completions in 2032. Old and Valuable "
               "Trees on the site will be preserved in a 1.2-hectare woodland park."),
        ),
        sec("(C) Living in the new estates",
            qa("Q8", "Will there be shops and markets in the new NM estates when residents move in?",
               "Each new NM estate of over 3 000 flats will have a shopping centre of at least 4 000 square metres and, where "
               "there is no market within 10 minutes' walk, a public market.",
               "Where the first intake arrives before the shopping centre opens, the Housing Department will arrange mobile "
               "stores and weekend bazaars, as was done at Fanling North in 2026."),
            qa("Q9", "How will residents of the new estates get around before the railway stations open?",
               "The Transport Department will run new franchised bus routes from each estate when the first residents move "
               "in, including feeder routes to Sheung Shui, Fanling and Tin Shui Wai stations every 10 to 15 minutes.",
               "For Kwu Tung North, two cross-harbour routes and a route to the Lok Ma Chau Control Point will start in 2027, "
               "before Kwu Tung Station opens."),
            qa("Q10", "What share of the NM public housing will be subsidised sale flats for first-time buyers?",
               "About 40% of the NM public housing flats, or about 50 000 flats, will be subsidised sale flats under the "
               "Home Ownership Scheme and the Green Form Subsidised Home Ownership Scheme.",
               "Half of the subsidised sale flats in each project will be reserved for Green Form applicants, mainly "
               "public rental housing tenants, so that their vacated rental flats can be allocated to those waiting."),
        ),
    ),
    queries=(
        q("Q1", "english", "How many public flats will the Northern Metropolis supply over ten years?"),
        q("Q1", "written", "未來十年北部都會區可提供多少個公營房屋單位？"),
        q("Q2", "english", "When will the first PRH estate in Kwu Tung North be ready?"),
        q("Q2", "cantonese", "古洞北第一個公屋幾時落成呀？"),
        q("Q3", "english", "When can residents move into the first Fanling North public housing?"),
        q("Q4", "english", "How much rent do Light Public Housing tenants pay in Yuen Long?"),
        q("Q4", "simplified", "北部都会区的简约公屋建在哪里？租金多少？"),
        q("Q5", "cantonese", "北都啲公屋落成之後，輪公屋要等幾耐？"),
        q("Q5", "english", "Will the NM flats bring down the waiting time for public rental housing?"),
        q("Q6", "written", "北部都會區每個公屋單位的建築成本是多少？組裝合成建築法能否節省成本？"),
        q("Q7", "english", "How many flats will be built at Fanling Golf Course?"),
        q("Q7", "cantonese", "粉嶺高球場嗰幅地可以起幾多個單位？"),
        q("Q8", "simplified", "北部都会区新屋邨入伙时有没有商场和街市？"),
        q("Q9", "english", "What bus services will residents of new NM estates have before the trains arrive?"),
        q("Q10", "written", "北部都會區公營房屋中資助出售單位佔多少？"),
        q("Q10", "english", "How many subsidised sale flats will the NM provide for first-time buyers?"),
        q("Q3", "simplified", "粉岭北第一批公营房屋什么时候入伙？"),
        q("Q6", "english", "Does Modular Integrated Construction make NM public flats cheaper or just faster?"),
        q("Q8", "cantonese", "北都新屋邨入伙嗰陣有冇街市買餸？"),
    ),
)
