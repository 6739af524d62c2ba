"""Capital works costs of the Northern Metropolis: English Q1./A1. pairs under lettered topics; PDF."""
from bench.unseen.model import Paper, q, qa, sec

PAPER = Paper(
    stem="U12_Northern_Metropolis_Capital_Works_Costs", fmt="pdf", lang="en", qa_style="en_marked", letter="F",
    date="2025-02-11", stamp="LC Paper No. FCR(2024-25)61",
    title_zh="北部都會區基本工程開支", title_en="Capital Works Expenditure for the Northern Metropolis",
    subtitle="Finance Committee, Public Works Subcommittee, meeting on 11 February 2025: Standby Questions and Answers",
    intro_heading="Speaking Notes",
    intro=(
        "Chairman, capital works expenditure is forecast at about HK$90 billion a year over the next five years, of which "
        "the Northern Metropolis (NM) accounts for about one third. The Government will fund part of this through the "
        "Infrastructure Bond Programme and will keep costs under control through the Project Cost Management Office.",
        "Today's submission seeks approval for three NM items: the second stage of site formation at Kwu Tung North, a "
        "trunk sewer for Fanling North and the advance works of the San Tin Technopole's western road link. Thank you, "
        "Chairman.",
    ),
    qa_heading="Standby Questions and Answers",
    sections=(
        sec("(A) Overall spending and funding",
            qa("Q1", "How much will be spent on Northern Metropolis infrastructure in the next five years?",
               "We forecast about HK$150 billion of capital works spending on the NM from 2025-26 to 2029-30, about one third "
               "of the total capital works forecast of HK$450 billion for the same period.",
               "Site formation and engineering infrastructure take about HK$96 billion, land resumption about HK$38 billion and "
               "community facilities about HK$16 billion. Railway projects financed by the MTR Corporation are not included."),
            qa("Q2", "How much borrowing under the Infrastructure Bond Programme will go to the NM?",
               "Of the HK$120 billion to HK$135 billion a year to be raised under the Infrastructure Bond Programme from "
               "2024-25, about HK$45 billion a year is expected to fund NM projects.",
               "Bond proceeds are credited to the Capital Works Reserve Fund and may only be spent on approved capital works. "
               "Debt outstanding under the programme is expected to stay below 15% of GDP."),
            qa("Q3", "Will land sales in the Northern Metropolis pay for the infrastructure?",
               "Over time, yes in part. The Financial Secretary's estimate is that land premium from NM residential and "
               "commercial sites will reach about HK$300 billion over 20 years, but most of it comes after the infrastructure "
               "is built.",
               "To bridge the gap, three pilot areas will use large-scale land disposal, under which developers take on part "
               "of the infrastructure cost: about 20 hectares at Hung Shui Kiu, 15 hectares at Ngau Tam Mei and 10 hectares "
               "at Lau Fau Shan. Tenders for the first pilot area closed in December 2024."),
        ),
        sec("(B) Cost control",
            qa("Q4", "How much has the Project Cost Management Office saved on NM projects?",
               "In 2024 the Project Cost Management Office reviewed 41 NM works items and trimmed about HK$11.8 billion, or "
               "about 8%, from their estimates before they were submitted to this Subcommittee.",
               "Most of the savings came from standardised designs for roads, footbridges and sewage pumping stations, and "
               "from re-using excavated soil on site instead of importing fill. The Office now has a target of 10% for the "
               "2025-26 submissions."),
            qa("Q5", "Why is the contingency in these estimates lower than the usual 10%?",
               "For the three items before Members today, the contingency is set at 7.5% of the construction cost because "
               "most of the ground investigation is already complete and the risks are better known.",
               "For projects with significant underground works, such as the San Tin Technopole sewage treatment works, we "
               "keep the 10% contingency. Any unused contingency returns to the Capital Works Reserve Fund."),
            qa("Q6", "Have any NM projects overrun their approved budgets?",
               "Of the 23 NM works items approved since 2019, two needed an increase in approved project estimate, together "
               "about HK$1.9 billion, mainly because of unforeseen ground conditions and higher steel prices in 2022.",
               "Both were reported to this Subcommittee before the increase was sought. The other 21 items are forecast to be "
               "completed within their approved estimates."),
            qa("Q7", "How much of the project cost goes to consultants?",
               "Consultancy fees for design and site supervision average about 6% of the project estimate for NM site "
               "formation items, compared with about 8% for works items elsewhere.",
               "The lower share reflects the use of integrated design-and-build contracts for the larger packages, in which "
               "the contractor bears part of the design cost."),
        ),
        sec("(C) Prices and compensation",
            qa("Q8", "How are rising construction prices reflected in the estimates?",
               "All estimates are in money-of-the-day prices, using the latest forecast of the Building Works Tender Price "
               "Index: tender prices are assumed to rise by 3.5% a year from 2025 to 2030.",
               "In 2024 the index rose by about 2.1%, so the assumption is cautious. Price fluctuation clauses in the "
               "contracts cover labour, steel, cement and fuel."),
            qa("Q9", "How much is budgeted for land resumption compensation in the NM?",
               "About HK$38 billion is earmarked under Head 701 (Land Acquisition) for NM resumptions from 2025-26 to "
               "2029-30, covering ex-gratia land compensation, allowances for business operators and rehousing-related "
               "payments.",
               "The largest items are the second stages of the Kwu Tung North and Fanling North and San Tin Technopole "
               "resumptions, together about HK$17 billion."),
            qa("Q10", "What does a kilometre of new road in the NM cost?",
               "The average cost of a new dual two-lane district distributor in the NM projects is about HK$620 million per "
               "kilometre, including drainage, lighting and landscaping but excluding land.",
               "Elevated sections and interchanges cost about three times as much per kilometre, which is why we have kept "
               "flyovers to junctions where an at-grade layout cannot carry the traffic."),
        ),
    ),
    queries=(
        q("Q1", "english", "What is the five-year capital works budget for the Northern Metropolis?"),
        q("Q1", "cantonese", "北都未來五年基建要使幾多錢？"),
        q("Q2", "english", "How much of the infrastructure bond money will fund NM projects each year?"),
        q("Q2", "simplified", "基建债券每年有多少用于北部都会区？"),
        q("Q3", "english", "Can land premium from Northern Metropolis sites pay for its infrastructure?"),
        q("Q3", "written", "北部都會區的賣地收入能否支付基建開支？片區開發試點在哪裏？"),
        q("Q4", "english", "How much money did the Project Cost Management Office save on NM works in 2024?"),
        q("Q5", "cantonese", "點解呢幾個北都工程嘅應急費唔係一成？"),
        q("Q5", "english", "Why is the contingency for these NM works items only 7.5%?"),
        q("Q6", "written", "北部都會區有多少工程項目超支，涉及多少款項？"),
        q("Q7", "english", "What share of NM project estimates goes to consultancy fees?"),
        q("Q8", "simplified", "北部都会区的工程预算怎样反映建筑价格上涨？"),
        q("Q9", "english", "What is the land acquisition budget for Northern Metropolis resumptions?"),
        q("Q9", "written", "北部都會區收地補償預留了多少款項？"),
        q("Q10", "cantonese", "北都起一公里新路要幾多錢？"),
        q("Q10", "english", "What is the cost per kilometre of a new district road in the NM?"),
        q("Q4", "cantonese", "工程項目成本管理處 2024 年幫北都工程慳咗幾多錢？"),
        q("Q7", "written", "北部都會區工程的顧問費約佔工程預算多少？"),
        q("Q6", "english", "Which Northern Metropolis works items went over budget, and by how much?"),
    ),
)
