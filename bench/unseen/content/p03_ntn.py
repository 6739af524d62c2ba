"""New Territories North New Town: English Q1./A1. pairs under lettered topics; PDF."""
from bench.unseen.model import Paper, q, qa, sec

PAPER = Paper(
    stem="U03_New_Territories_North_New_Town", fmt="pdf", lang="en", qa_style="en_marked", letter="N",
    date="2025-05-13", stamp="LC Paper No. CB(1)781/2025(05)",
    title_zh="新界北新市鎮", title_en="New Territories North New Town",
    subtitle="Legislative Council Panel on Development, meeting on 13 May 2025: Speaking Notes and Standby Questions and Answers",
    intro_heading="Speaking Notes",
    intro=(
        "Chairman, the New Territories North (NTN) New Town covers about 1 500 hectares around Ping Che, Ta Kwu Ling, "
        "Hung Lung Hang and Heung Yuen Wai, next to the Heung Yuen Wai Boundary Control Point. When fully developed it will "
        "house about 185 000 people in some 71 000 flats and provide about 215 000 jobs.",
        "The Recommended Outline Development Plan was published in October 2024. We aim to complete the statutory planning "
        "procedures in 2026 and to start the first batch of site formation works at Ping Che in 2027, so that the first "
        "residents can move in around 2034.",
        "The New Town will be developed in three stages, with the Heung Yuen Wai area serving as an industry and logistics "
        "hub linked to the Lo Wu/Man Kam To cross-boundary corridor. Thank you, Chairman.",
    ),
    qa_heading="Standby Questions and Answers",
    sections=(
        sec("(A) Railway and Transport",
            qa("Q1", "Will the New Territories North New Town be served by a railway, and when?",
               "Yes. We propose extending the Northern Link eastwards from Kwu Tung to Ping Che and Heung Yuen Wai, with three new "
               "stations at Ta Kwu Ling, Ping Che and Heung Yuen Wai.",
               "The Northern Link Eastern Extension is about 13 km long and will run mostly in tunnel. Subject to the MTR "
               "Corporation's project proposal, construction would start in 2029 and the extension would open in 2037.",
               "Until then, franchised buses and green minibuses will link the first population intake with Fanling and Sheung "
               "Shui stations; a bus terminus with 8 bays will open at Ping Che in 2034."),
            qa("Q2", "How will the road network cope with the extra traffic from the New Town?",
               "The Transport Department's assessment shows that Fanling Highway between Wo Hop Shek and Kwu Tung would be "
               "overloaded by 2036 without new roads, so we will build two new links.",
               "The first is a 6.2 km dual two-lane road from Ping Che to the Heung Yuen Wai Highway, to be completed in 2033. "
               "The second is a widening of Sha Tau Kok Road (Lung Yeuk Tau to Ping Che section) to dual two-lane, about 4.8 km, "
               "to be completed in 2032. We are also studying a new trunk road linking the New Town with the Northern "
               "Metropolis Highway near San Tin."),
        ),
        sec("(B) Sewerage and Drainage",
            qa("Q3", "Where will sewage from the NTN New Town be treated?",
               "A new Ping Che Sewage Treatment Works will be built at the northern end of the New Town, with a design capacity "
               "of 98 000 cubic metres per day at tertiary treatment level.",
               "The works will be built in two phases, the first 45 000 cubic metres per day by 2033. Treated effluent will be "
               "partly reused as reclaimed water for flushing and landscape irrigation, and the remainder discharged to the "
               "Ng Tung River after disinfection, so that no additional pollution load reaches Deep Bay.",
               "[For internal reference: the Environmental Protection Department has indicated that a discharge licence for "
               "the second phase may require effluent polishing to nitrogen levels below 5 mg per litre.]"),
            qa("Q4", "Will the development worsen flooding along the Ping Yuen River?",
               "No. The Drainage Services Department will build an underground stormwater storage tank of about 110 000 cubic "
               "metres at Ping Che and widen about 3.5 km of the Ping Yuen River channel.",
               "The drainage design adopts a 1 in 200 year return period for the main channels, higher than the 1 in 50 year "
               "standard used elsewhere in the rural New Territories, because of the low-lying villages of Ta Kwu Ling."),
        ),
        sec("(C) Land Resumption and Rehousing",
            qa("Q5", "How much private land will need to be resumed, and when?",
               "About 620 hectares of private land will need to be resumed over the three stages, of which about 190 hectares "
               "fall within the first stage around Ping Che and Ta Kwu Ling.",
               "We expect to gazette the first stage land resumption in 2027. The Lands Department will issue statutory "
               "notices at least three months before the land reverts to the Government, and ex-gratia compensation offers "
               "will be made at the same time."),
            qa("Q6", "What is the cut-off date for rehousing eligibility in the NTN New Town?",
               "The pre-clearance survey (freezing survey) for the first stage was carried out on 24 October 2024, the day the "
               "Recommended Outline Development Plan was announced; only households registered in that survey are eligible "
               "for non-means-tested rehousing.",
               "The survey registered about 2 100 households in the first stage. A dedicated rehousing estate of about 1 800 "
               "flats is planned at Ping Che, targeted for completion in 2032, before the main clearance begins.",
               "[If pressed: will later stages have their own survey dates?] Yes. Each later stage will have its own survey, "
               "conducted on the day its resumption plan is announced."),
            qa("Q7", "What arrangements are there for farmers affected in Ta Kwu Ling?",
               "About 48 hectares of active farmland are affected. Eligible farmers may receive ex-gratia allowances for crops "
               "and, if they wish to continue farming, apply through the Agriculture, Fisheries and Conservation Department "
               "for land in the Agricultural Park at Kwu Tung South.",
               "We will also reserve about 30 hectares in the eastern part of the New Town as an agricultural priority area, "
               "where fish ponds and farmland will be kept."),
        ),
        sec("(D) Jobs, Schools and Cost",
            qa("Q8", "How many jobs will the New Town create, and what kinds?",
               "About 215 000 jobs, the largest number of any development area in the Northern Metropolis outside the San Tin "
               "Technopole.",
               "Around 40% of the floor area near Heung Yuen Wai will be for advanced manufacturing, cold-chain logistics and "
               "data facilities, taking advantage of the cross-boundary road link to Shenzhen's Luohu district. The Ping Che "
               "town centre will provide about 600 000 square metres of commercial floor space."),
            qa("Q9", "How many schools are planned, and when will the first open?",
               "The Recommended Outline Development Plan reserves sites for 15 primary schools and 11 secondary schools.",
               "The first two primary schools, at Ping Che North and Ta Kwu Ling, are planned to open in the 2034/35 school "
               "year to match the first population intake. Special school and kindergarten places are provided within the "
               "public housing sites."),
            qa("Q10", "What is the estimated cost of the first stage works?",
               "The first stage site formation and engineering infrastructure works are estimated at about HK$42 billion in "
               "money-of-the-day prices, excluding the railway extension and land resumption.",
               "We plan to seek funding from the Finance Committee in two batches: the advance works (about HK$6.5 billion) in "
               "the 2026-27 legislative session and the main works thereafter. The Project Cost Management Office has "
               "already trimmed about 9% from the preliminary estimate by standardising road and drainage designs."),
        ),
    ),
    queries=(
        q("Q1", "english", "When will a railway reach NTN, and which new stations are proposed?"),
        q("Q1", "cantonese", "新界北新市鎮有冇鐵路？北環線東延幾時通車呀？"),
        q("Q2", "english", "Which new roads are needed to stop Fanling Highway being overloaded by the New Territories North New Town?"),
        q("Q2", "written", "新界北新市鎮的交通如何應付，會否擴闊沙頭角公路？"),
        q("Q3", "english", "What sewage treatment capacity is planned for the NTN New Town?"),
        q("Q3", "simplified", "新界北新市镇的污水会送到哪里处理？"),
        q("Q4", "english", "Will building the New Territories North New Town make flooding worse along the Ping Yuen River?"),
        q("Q5", "english", "How many hectares of private land must be resumed for the NTN New Town's first stage?"),
        q("Q5", "written", "新界北新市鎮第一階段須收回多少私人土地？"),
        q("Q6", "english", "What is the freezing survey date for rehousing in the New Territories North New Town?"),
        q("Q6", "cantonese", "新界北新市鎮啲住戶要喺邊日登記咗先有得安置？"),
        q("Q7", "english", "What help will farmers in Ta Kwu Ling get if their land is resumed?"),
        q("Q8", "written", "新界北新市鎮可創造多少個職位？以哪類產業為主？"),
        q("Q8", "english", "How many jobs is the NTN New Town expected to provide?"),
        q("Q9", "simplified", "新界北新市镇规划了多少所学校？第一所什么时候开办？"),
        q("Q10", "cantonese", "新界北新市鎮第一階段工程要使幾多錢？"),
        q("Q4", "cantonese", "平原河一帶會唔會因為起新界北新市鎮而多咗水浸？"),
        q("Q7", "written", "打鼓嶺受影響的農戶可否復耕？有何安排？"),
    ),
)
