"""Northern Metropolis University Town at Ngau Tam Mei: English Q1. questions with no answer
marker; DOCX."""
from bench.unseen.model import Paper, q, qa, sec

PAPER = Paper(
    stem="U06_Northern_Metropolis_University_Town", fmt="docx", lang="en", qa_style="en_q_only", letter="U",
    date="2025-07-08", stamp="LC Paper No. CB(4)1012/2025(03)",
    title_zh="北部都會區大學城（牛潭尾）", title_en="Northern Metropolis University Town at Ngau Tam Mei",
    subtitle="Legislative Council Panel on Education and Panel on Development, joint meeting on 8 July 2025: Standby Questions",
    intro_heading="Background",
    intro=(
        "1. The 2024 Policy Address announced that about 80 hectares of land at Ngau Tam Mei would be reserved for a "
        "University Town in the Northern Metropolis (NM), with space for post-secondary institutions, shared research "
        "facilities and student hostels for about 20 000 students.",
        "2. The Education Bureau invited expressions of interest in March 2025 and received proposals from six local "
        "universities. The first campus is targeted to admit students in 2032.",
        "3. The questions below are those Members may raise at the joint meeting, with suggested replies.",
    ),
    qa_heading="Questions and Answers",
    sections=(
        sec(None,
            qa("Q1", "Which universities will set up campuses in the University Town?",
               "The Education Bureau has shortlisted three universities for the first batch of sites: the University of "
               "Hong Kong, the Hong Kong University of Science and Technology and Hong Kong Baptist University.",
               "Each will receive a site of 8 to 12 hectares. The remaining 30 hectares are kept for a second batch, to be "
               "allocated in 2027, and for a shared Chinese medicine research centre."),
            qa("Q2", "When will the Ngau Tam Mei railway station open, and will it serve the University Town?",
               "Ngau Tam Mei Station will open together with the Northern Link Main Line in 2034, with an exit built "
               "directly into the University Town's central plaza.",
               "The station sits between Kam Sheung Road and San Tin stations on the Main Line. Until it opens, shuttle "
               "buses will run every 8 minutes to Kam Sheung Road Station for the first cohort of students. From "
               "Ngau Tam Mei, a trip to Kam Sheung Road will take about 4 minutes, and to Kowloon Tong about 35 minutes "
               "with one interchange."),
            qa("Q3", "How many student hostel places will be built?",
               "About 9 000 hostel places will be built in the first phase, rising to 16 000 when the University Town is "
               "complete.",
               "Hostels will be developed under a public-private partnership: the Government grants land at nominal "
               "premium and the operators must cap rents at 70% of market rent for non-local students and 50% for local "
               "students."),
            qa("Q4", "How much private land at Ngau Tam Mei must be resumed for the University Town?",
               "About 52 hectares of the 80-hectare site are private land, mostly abandoned farmland, fish ponds and "
               "container yards along Castle Peak Road (Tam Mi section).",
               "The Lands Department plans to gazette the resumption in mid-2026. About 160 private lots and 21 "
               "brownfield operators are affected."),
            qa("Q5", "What is the cut-off date for rehousing households affected at Ngau Tam Mei?",
               "The freezing survey for the Ngau Tam Mei development was conducted on 11 November 2024, and only "
               "households registered in it are eligible for non-means-tested rehousing.",
               "About 310 households were registered. They may choose rehousing in the dedicated estate at San Tin, "
               "scheduled for completion in 2030, or a cash allowance."),
            qa("Q6", "How many research jobs will the University Town bring?",
               "We estimate about 12 000 jobs, including 5 000 research posts in the shared laboratories and the "
               "Chinese medicine centre, and about 7 000 teaching, administrative and support posts.",
               "The University Town is two kilometres from the San Tin Technopole, and we expect many graduates to move "
               "straight into innovation and technology firms there."),
            qa("Q7", "What is the estimated cost of the site formation and infrastructure for the University Town?",
               "The site formation and infrastructure works are estimated at about HK$18 billion in money-of-the-day "
               "prices.",
               "The campus buildings will be funded separately: each university may seek a capital grant through the "
               "University Grants Committee, and half of the first-phase hostel cost is expected to come from private "
               "partners."),
            qa("Q8", "Will sewage from the University Town overload the Yuen Long treatment works?",
               "No. Sewage from the University Town will be conveyed by a new 4.2 km rising main to the expanded Yuen "
               "Long Effluent Polishing Plant, which has spare capacity of about 40 000 cubic metres per day after its "
               "upgrade.",
               "The University Town itself will generate about 9 000 cubic metres of sewage per day at full occupation. "
               "The campuses will also reuse grey water for toilet flushing."),
            qa("Q9", "Will there be primary and secondary schools for the families of staff?",
               "The University Town is mainly for post-secondary education, but two international school sites of about "
               "1.5 hectares each are reserved next to the staff quarters.",
               "Families may also use the 4 primary schools and 3 secondary schools planned in the neighbouring Ngau Tam "
               "Mei residential zone, the first of which opens in 2031."),
            qa("Q10", "How will traffic on Castle Peak Road (Tam Mi section) be managed?",
               "Castle Peak Road (Tam Mi section) will be widened to a dual two-lane carriageway between Pok Wai South "
               "Road and San Tam Road, about 3.1 km, by 2031.",
               "A new slip road will connect the University Town to the San Tin Highway, so that coaches and goods "
               "vehicles need not pass through the Ngau Tam Mei villages."),
        ),
    ),
    queries=(
        q("Q1", "english", "Which universities have been picked for the first campuses at the NM University Town?"),
        q("Q1", "written", "北都大學城首批會有哪幾間大學進駐？"),
        q("Q2", "english", "Is there a railway station for the University Town at Ngau Tam Mei?"),
        q("Q2", "cantonese", "牛潭尾站幾時開？大學城啲學生搭車方唔方便？"),
        q("Q3", "english", "How many hostel places will students get at the Ngau Tam Mei University Town?"),
        q("Q3", "simplified", "北都大学城会提供多少个学生宿位？"),
        q("Q4", "english", "How much private land has to be resumed for the University Town?"),
        q("Q5", "english", "What freezing survey date applies to households displaced by the Ngau Tam Mei University Town?"),
        q("Q5", "cantonese", "牛潭尾啲住戶要喺邊日登記咗先可以安置？"),
        q("Q6", "written", "北部都會區大學城能帶來多少個科研職位？"),
        q("Q7", "english", "What will site formation for the NM University Town cost?"),
        q("Q8", "simplified", "牛潭尾大学城的污水会不会令元朗污水处理厂不胜负荷？"),
        q("Q9", "cantonese", "大學城教職員嘅仔女有冇中小學讀？"),
        q("Q10", "written", "青山公路潭尾段會否擴闊以應付大學城的交通？"),
        q("Q4", "written", "牛潭尾大學城須收回多少私人土地？涉及多少棕地作業者？"),
        q("Q7", "cantonese", "北都大學城平整地盤同基建要使幾多錢？"),
        q("Q10", "english", "Will Castle Peak Road (Tam Mi) be widened for the University Town traffic?"),
    ),
)
