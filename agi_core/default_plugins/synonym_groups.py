"""The built-in synonym groups (rule S4): each line is ``canonical: synonym, synonym, …``.

Source: written by hand for agi-core (issue 22). No package on PyPI ships a WordNet that works
offline (``wn`` and ``nltk`` download their WordNet data at run time), so the table is curated:

- spelling groups: the British and American spellings of the Oxford and Merriam-Webster
  dictionaries' variant lists (``colour``/``color``, ``centre``/``center``, ``-ise``/``-ize``);
- word groups: everyday near-synonyms of the nouns people use for facts about themselves and
  things (kin, people, places, objects, food, media, work), kept only where every word of a
  group names the same attribute, so two of them never mean different facts;
- phrase groups (words joined by ``_``): a whole key segment that means another one
  (``date_of_birth`` → ``birth_date``, ``phone_number`` → ``phone``).

Words map to the first word of their line before keys are built; a whole segment then maps
through the phrase groups. Names of things (``world/entity/<name>``) are never mapped.
"""

from __future__ import annotations

GROUPS = """
favorite: favourite, fav, fave, favorit, favourit
color: colour, hue, colouring, coloring, tint, shade
flavor: flavour, taste
neighbor: neighbour
neighborhood: neighbourhood, neighbourhoods
honor: honour
humor: humour
labor: labour
behavior: behaviour
harbor: harbour
rumor: rumour
armor: armour
vapor: vapour
odor: odour, smell, scent
savior: saviour
endeavor: endeavour
parlor: parlour
splendor: splendour
vigor: vigour
valor: valour
rancor: rancour
clamor: clamour
glamor: glamour
candor: candour
fervor: fervour
tumor: tumour
center: centre
theater: theatre
meter: metre
liter: litre
fiber: fibre
caliber: calibre
specter: spectre
luster: lustre
saber: sabre
scepter: sceptre
kilometer: kilometre, km
centimeter: centimetre, cm
millimeter: millimetre, mm
kilogram: kilogramme, kg
gram: gramme
catalog: catalogue
dialog: dialogue
analog: analogue
program: programme
defense: defence
offense: offence
license: licence
pretense: pretence
gray: grey
tire: tyre
aluminum: aluminium
jewelry: jewellery
pajamas: pyjamas
airplane: aeroplane, plane, aircraft
plow: plough
mold: mould
mustache: moustache
skeptic: sceptic
maneuver: manoeuvre
pediatrician: paediatrician
encyclopedia: encyclopaedia
anesthetist: anaesthetist
traveler: traveller
counselor: counsellor
jeweler: jeweller
curb: kerb
draft: draught
jail: gaol, prison
cozy: cosy
aging: ageing
judgment: judgement
acknowledgment: acknowledgement
enrollment: enrolment
fulfillment: fulfilment
installment: instalment
organization: organisation
specialization: specialisation
realization: realisation
optimization: optimisation
authorization: authorisation
civilization: civilisation
globalization: globalisation
hospitalization: hospitalisation
localization: localisation
normalization: normalisation
personalization: personalisation
privatization: privatisation
characterization: characterisation
categorization: categorisation
visualization: visualisation
utilization: utilisation
synchronization: synchronisation
customization: customisation
immunization: immunisation
apologize: apologise
organize: organise
realize: realise
recognize: recognise
analyze: analyse
paralyze: paralyse
catalyze: catalyse
criticize: criticise
emphasize: emphasise
memorize: memorise
summarize: summarise
prioritize: prioritise
specialize: specialise
modeling: modelling
traveling: travelling
canceling: cancelling
labeling: labelling
fueling: fuelling
woolen: woollen
skillful: skilful
willful: wilful
gauge: gage
ax: axe
disk: disc
donut: doughnut
yogurt: yoghurt, yoghourt
ketchup: catsup
whiskey: whisky
cookie: biscuit
sweater: jumper, pullover
sneaker: sneakers
apartment: flat, appartment
elevator: lift
truck: lorry
gasoline: petrol
trash: rubbish, garbage, refuse
vacation: holiday, holidays, vacations
autumn: fall
faucet: tap
diaper: nappy
zucchini: courgette
eggplant: aubergine
cilantro: coriander
candy: sweets
chips: crisps
flashlight: torch
sidewalk: pavement
subway: underground, tube, metro
highway: motorway, freeway
parking_lot: car_park
postcode: zip, zipcode, postalcode, postal_code, zip_code
mother: mom, mum, mummy, mommy, mama, mamma, mam, momma, mater
father: dad, daddy, papa, dada, pater, pops
sister: sis, sissy
brother: bro, bruv
grandmother: grandma, granny, nana, nan, gran, grandmom, gramma
grandfather: grandpa, granddad, grandad, gramps, grandpop, granddaddy
husband: hubby
wife: wifey, missus, missis
spouse: consort
partner: significant_other
girlfriend: gf
boyfriend: bf
child: kid, kiddo, offspring
baby: infant, newborn, bairn
aunt: auntie, aunty
cousin: cuz, coz
friend: pal, buddy, chum, mate, amigo, bestie
best_friend: bff
boss: manager, supervisor, superior
colleague: coworker, workmate, co_worker, associate
employee: staffer, worker
roommate: flatmate, housemate, roomie
teacher: instructor, educator, schoolteacher
professor: prof
student: pupil, learner
doctor: physician, doc, medic, gp
dentist: orthodontist
nurse: rn
lawyer: attorney, solicitor, barrister, counsel, advocate
accountant: bookkeeper
pharmacist: chemist, druggist
hairdresser: hairstylist, barber, stylist
mechanic: repairman
vet: veterinarian, veterinary
pastor: priest, minister, vicar, reverend
landlord: landlady
car: automobile, auto, motorcar, vehicle
bike: bicycle
boat: vessel
computer: pc
laptop: notebook_computer
television: tv, telly
dog: doggy, doggie, doggo, hound, pooch, pup, puppy, canine
cat: kitty, kitten, pussycat, puss, feline, moggy
horse: pony, steed
rabbit: bunny
bird: birdie
fish: goldfish
home: residence, abode, dwelling, domicile, homeplace
home_town: hometown
birth_place: birthplace, place_of_birth
birth_date: birthday, dob, birthdate, bday, date_of_birth
last_name: surname, lastname, family_name
height: stature
job: occupation, profession, career, vocation, trade, employment
salary: pay, wage, wages, income, earnings
university: uni, varsity
degree: diploma
hobby: pastime, pursuit, recreation
team: squad
food: dish, meal, cuisine, grub, chow
drink: beverage, tipple
snack: nibble
vegetable: veggie, veg, veggies, vegetables
breakfast: brekkie
dinner: supper
lunch: luncheon
tea: cuppa
beer: ale, lager
wine: vino
restaurant: eatery, diner, bistro
cafe: coffeehouse, coffeeshop, coffee_shop
bar: pub, tavern, saloon
shop: store
supermarket: grocery_store, grocery, grocer
movie: film, flick, picture_show, motion_picture, movies
actor: actress, performer
song: tune, track, ballad
singer: vocalist, crooner
book: novel, tome, paperback, hardback
author: writer, novelist
poet: bard, versifier
game: videogame, video_game
city: metropolis, municipality
country: nation, homeland
language: tongue, lingo
religion: faith
nationality: citizenship
capital: capital_city
population: inhabitants, populace
president: head_of_state
animal: creature, beast
flower: blossom, bloom
plant: houseplant
ship: liner
train: railway
airport: airfield, aerodrome
hotel: inn, motel, lodge
garden: yard, backyard
kitchen: cookhouse
bedroom: bedchamber
bathroom: restroom, washroom, lavatory, toilet, loo
clothes: clothing, garments, attire, apparel, outfit
shoe: footwear
hat: cap
coat: jacket, overcoat
dress: gown, frock
shirt: blouse
wallet: billfold
glasses: spectacles, specs, eyeglasses
watch: wristwatch, timepiece
necklace: pendant
perfume: fragrance, cologne
medicine: medication, drug, meds, medicament, remedy
illness: disease, sickness, ailment, malady
hospital: infirmary
appointment: appt, booking, reservation
meeting: meet_up, meetup, get_together
party: celebration, bash, fete
wedding: marriage_ceremony, nuptials
event: occasion
password: passcode, passphrase, pwd
pin: pin_code, pincode
username: login, user_name, handle
account: acct
car_plate: license_plate, number_plate, registration_plate, licence_plate
blood_type: blood_group
eye_color: eye_colour
hair_color: hair_colour
shoe_size: foot_size
size: dimensions
feeling: emotion, sentiment
fear: phobia
dream: aspiration, ambition
opinion: viewpoint, stance
belief: conviction
habit: routine, custom
skill: ability, talent, knack, forte
problem: issue, trouble, difficulty
question: query, enquiry, inquiry
answer: reply, response
price: cost, fee
budget: allowance
debt: arrears
rent: rental
mortgage: home_loan
insurance: coverage
tax: levy
invoice: bill
receipt: proof_of_purchase
order: purchase
delivery: shipment, consignment
package: parcel
message: msg, text_message
photo: photograph, picture, pic, snapshot
website: site, webpage, homepage
newspaper: gazette
magazine: periodical, zine
office: bureau
chair: seat
couch: sofa, settee, divan
toy: plaything
doll: dolly
tool: implement, utensil, device
knife: blade
spoon: ladle
cup: mug
plate: platter
bottle: flask
box: crate, carton
lock: padlock
door: doorway
window: windowpane, pane
street: road, avenue, lane, boulevard
building: edifice, structure
bridge: overpass, viaduct
mountain: mount, peak, summit
river: stream, brook, creek
lake: pond, loch
sea: ocean
beach: shore, seashore, seaside, coast
island: isle, islet
forest: woods, woodland, wood
desert: wasteland
region: area, zone, district, territory
direction: bearing, heading
day: weekday
week: wk
year: yr, yrs
night: nighttime
project: undertaking, venture
business: enterprise, concern
family: household, clan
birth_year: year_of_birth, yob
death_date: date_of_death
graduation: commencement
wedding_date: date_of_wedding
start_date: starting_date, begin_date
end_date: ending_date, finish_date
arrival: arrival_time, eta
departure: departure_time, etd
flight: flight_number, flight_no
seat_number: seat_no
room: room_number, room_no
large: big, huge, enormous, giant, massive, vast
fast: quick, rapid, swift, speedy
slow: sluggish, unhurried
happy: glad, cheerful, joyful, content, pleased
sad: unhappy, sorrowful, gloomy, downcast
angry: furious, irate, cross
tired: sleepy, weary, exhausted, fatigued
smart: clever, intelligent, bright, brainy
stupid: dumb, foolish, dim
beautiful: pretty, lovely, gorgeous, attractive
ugly: unattractive, hideous
rich: wealthy, affluent, loaded
poor: needy, impoverished
old: elderly, aged, ancient
young: youthful, juvenile
hard: difficult, tough, challenging
quiet: silent, hushed
loud: noisy, deafening
clean: spotless, tidy
dirty: filthy, grimy, messy
cold: chilly, freezing, frosty, icy
wet: damp, soggy, moist
dry: arid, parched
far: distant, remote
begin: start, commence
end: finish, conclude, terminate
buy: acquire
sell: vend
help: assist, aid
talk: speak, chat, converse
ask: inquire, enquire
like: enjoy, fancy
love: adore, cherish
hate: detest, loathe, despise
want: desire, wish, crave
need: require
think: believe, reckon, suppose
know: understand, grasp
break: smash, shatter
fix: repair, mend
come: arrive, approach
eat: dine, consume
sleep: slumber, snooze, doze, nap
run: jog, sprint
walk: stroll, hike, wander
read: peruse
workplace: employer, company, firm
name: firstname, forename, first_name, given_name, christian_name
nickname: moniker, alias, sobriquet
phone: telephone, cellphone, smartphone, mobile, phone_number, telephone_number, mobile_number, cell_phone, phone_phone
email: e_mail, email_address, e_mail_address, mail_address
birth_country: country_of_birth
job_title: position_title
soda: soft_drink, fizzy_drink
cinema: movie_theater, movie_theatre, picture_house
motorcycle: motorbike
therapist: psychotherapist, shrink
dessert: pudding, afters
trip: journey, voyage, excursion, outing
anniversary: jubilee
allergy: intolerance
parents: folks
relative: kin, kinsman, kinswoman, kinfolk
uncle: unc
stroller: pram, pushchair, buggy
mail: post
queue: line_up
schedule: timetable, agenda
deadline: due_date, cutoff
reminder: memo
task: chore, errand, assignment
place: locale, venue
speed: velocity, pace
weekend: wkend
painting: artwork
painter: artist
musician: instrumentalist
currency: money
card: credit_card
new: brandnew
easy: simple, effortless
small: little, tiny, petite, miniature, wee
near: nearby
cheap: inexpensive, affordable
expensive: costly, pricey
hot: scorching, sweltering
mood: temper
instrument: musical_instrument
season: time_of_year
plan: scheme, strategy
video: clip, vid
news: tidings
channel: tv_channel
weight: body_weight
poem: verse
band: music_group
brand: make, marque
bag: handbag
address: home_address, street_address, postal_address
strength: strong_suit
weakness: flaw, shortcoming
sport: sports
fruit: fruits
meat: meats
pet: pets
tree: trees
key: keys
park: parkland
children: kids
nephew: nephews
check: cheque
sulfur: sulphur
fetus: foetus
esophagus: oesophagus
estrogen: oestrogen
hemoglobin: haemoglobin
leukemia: leukaemia
anemia: anaemia
orthopedic: orthopaedic
archeology: archaeology
medieval: mediaeval
pediatrics: paediatrics
gynecologist: gynaecologist
omelet: omelette
fulfill: fulfil
enroll: enrol
distill: distil
instill: instil
smolder: smoulder
molt: moult
tranquility: tranquillity
carburetor: carburettor
marvelous: marvellous
cancellation: cancelation
esthetic: aesthetic
ameba: amoeba
caliper: calliper
checkered: chequered
draftsman: draughtsman
enology: oenology
licorice: liquorice
math: maths, mathematics
skeptical: sceptical
somber: sombre
woolly: wooly
wrench: spanner
councilor: councillor
favor: favour
honorable: honourable
meager: meagre
ocher: ochre
rigor: rigour
ardor: ardour
arbor: arbour
demeanor: demeanour
misdemeanor: misdemeanour
savor: savour
"""


def _groups() -> list[tuple[str, tuple[str, ...]]]:
    groups = []
    for line in GROUPS.strip().splitlines():
        head, _, rest = line.partition(":")
        groups.append((head.strip(), tuple(word.strip() for word in rest.split(",") if word.strip())))
    return groups


SYNONYM_GROUPS: list[tuple[str, tuple[str, ...]]] = _groups()
"""``(canonical, synonyms)`` per group, in the order of the table."""


def synonym_table() -> dict[str, str]:
    """Every synonym mapped to its group's canonical word."""
    return {word: head for head, words in SYNONYM_GROUPS for word in words}
